"""Standard instruments in studies (issue 40): `study create --instrument NAME@TICK` asks every arm's run
once it has finished; its figures become `validity_*` measures that `study compare` tests between arms
(whether an intervention moved the society toward people's answers), and the instrument's 120 items do
not flood the survey measures."""
from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.template.defaultfilters import floatformat
from django.test import Client

from voyage.instruments.administer import scored, sheets
from voyage.instruments.models import PersonaRating, Survey
from voyage.instruments.persona_rating import mtmm
from voyage.instruments.standard_instruments import instrument
from voyage.models import LLMCall
from voyage.studies.models import Study
from voyage.studies.stats import seed_for
from voyage.web.study_report import report

pytestmark = pytest.mark.django_db
LAMP = 'lamp={"kind": "object_place", "tick": 3, "name": "Brass lamp", "room": "salon", "text": "It hums."}'


def test_instruments_in_a_study_become_validity_measures():
    call_command("study", "create", "--name", "measured", "--scenario", "edelweiss", "--ticks", "8",
                 "--vary", "intervention=none,lamp", "--vary", "seeds=2", "--intervention", LAMP,
                 "--instrument", "ipip-neo-120@5", "--instrument", "ipip-neo-120@8", "--instrument", "gss-trust@8",
                 "--no-start", stdout=io.StringIO())
    call_command("study", "run", "measured", stdout=io.StringIO(), stderr=io.StringIO())
    study = Study.objects.get(name="measured")
    arms = study.members.filter(is_base=False).count()
    assert Survey.objects.filter(instrument="ipip-neo-120", made_by="study measured").values(
        "run").distinct().count() == arms
    section = {(v.name, v.tick): v for v in report(study)["validity"]}
    assert set(section) == {("ipip-neo-120", 5), ("ipip-neo-120", 8), ("gss-trust", 8)}
    first, retest, gss = section[("ipip-neo-120", 5)], section[("ipip-neo-120", 8)], section[("gss-trust", 8)]
    assert [a.arm for a in first.arms] == ["intervention=none", "intervention=lamp"]
    agents = Survey.objects.filter(instrument="ipip-neo-120", made_by="study measured", tick=5, page=1).values_list(
        "agents", flat=True)
    assert [a.runs for a in first.arms] == [2, 2] and sum(a.agents for a in first.arms) == sum(agents)
    n = first.arms[0]
    alpha = {d["letter"]: d["alpha"] for d in n.domains}
    assert set(alpha) == {"N", "E", "O", "A", "C"} and all(a["n"] == n.agents for a in alpha.values())
    assert all(a["value"] is None or a["interval"][0] <= a["value"] <= a["interval"][1] for a in alpha.values())
    assert first.retest_tick is None and "one tick" in n.domains[0]["retest"]["reason"]
    assert retest.retest_tick == 5 and retest.arms[0].domains[0]["retest"]["n"] == n.agents
    assert first.people["source"].startswith("Johnson (2014)")
    assert_persona_tables(study, section, arms)
    html = report_html(study)
    for v in (first, retest):
        for arm in v.arms:
            shown = html_arm(html, v, arm.arm)
            d = arm.persona["discriminant"]
            assert f'<span class="discriminant">{floatformat(d["value"], 3)} <span class="ci">[' \
                   f'{floatformat(d["interval"][0], 3)}, {floatformat(d["interval"][1], 3)}]</span></span>' in shown
            for letter, cells in arm.persona_rows:
                row = re.search(rf'<tr data-rated="{letter}">(.*?)</tr>', shown, re.S).group(1)
                c = arm.persona["convergent"][letter]
                assert f'<td class="num convergent">{floatformat(c["value"], 3)}<br><span class="ci">' \
                       f'[{floatformat(c["interval"][0], 3)}, {floatformat(c["interval"][1], 3)}]</span></td>' in row
                assert row.count("<td") == 5
    PersonaRating.objects.all().delete()  # a study asked before ratings were kept: the report says so, asks nothing
    again = {(v.name, v.tick): v for v in report(study)["validity"]}[("ipip-neo-120", 5)].arms[0]
    assert again.persona["matrix"] is None and again.persona_rows == []
    assert again.persona["discriminant"]["reason"].startswith("no persona of these runs was rated by its judge")
    assert not PersonaRating.objects.exists()
    [trust] = [r for r in gss.arms[1].references if r["item"] == "trust"]
    assert trust["split"] and trust["shares"][0][0] == "most people can be trusted"
    assert 0 <= trust["tv_distance"]["value"] <= 1 and "General Social Survey" in trust["source"]
    out = io.StringIO()
    call_command("study", "results", "measured", stdout=out, stderr=io.StringIO())
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    header = list(rows[0])
    assert {"validity_t5_N_score", "validity_t5_N_alpha", "validity_t8_trust_tv", "validity_t8_fair_wasserstein"} \
        <= set(header)
    assert not any(c.startswith("survey_t5_ipip") for c in header)  # pages are not survey measures
    assert all(24 <= float(r["validity_t5_N_score"]) <= 120 for r in rows)
    assert all(0 <= float(r["validity_t8_trust_tv"]) <= 1 for r in rows)
    lines = io.StringIO()
    call_command("study", "compare", "measured", "--measure", "validity_t8_trust_tv", stdout=lines,
                 stderr=io.StringIO())
    [line] = [json.loads(x) for x in lines.getvalue().splitlines()]
    assert line["arm"] == "intervention=lamp" and line["n"] == 2 and "p_adjusted" in line


def test_an_unknown_instrument_is_refused_by_name():
    with pytest.raises(CommandError, match="--instrument 'mmpi@5': no instrument 'mmpi'"):
        call_command("study", "create", "--name", "x", "--scenario", "edelweiss", "--ticks", "8",
                     "--instrument", "mmpi@5", "--no-start", stdout=io.StringIO())


def assert_persona_tables(study, section, arms):
    """Each arm's persona table pools its seeds: every agent of every run (run:persona) with the rating the
    study kept for its persona (one offline judge call per persona, however many runs and ticks), against
    the domain scores it gave at that tick; the figures are mtmm's on exactly those pairs, with the
    section's seed. The offline policy plants the traits both come from, so convergent r is positive
    where discriminant is not."""
    ratings = list(PersonaRating.objects.filter(profile="offline").select_related("persona"))
    kept = {r.persona.key: r.ratings for r in ratings}
    assert len(kept) == 8 and all(1 <= v <= 5 for r in kept.values() for v in r.values())
    rating_calls = set(LLMCall.objects.filter(purpose="survey", tick=0).values_list("id", flat=True))
    assert rating_calls == {r.call_id for r in ratings} and len(rating_calls) == 8  # asked once, not per run
    inst = instrument("ipip-neo-120")
    members = {m.run_id: m.cell["intervention"] for m in study.members.filter(is_base=False)}
    for (name, tick), v in section.items():
        if name != "ipip-neo-120":
            assert all(a.persona is None for a in v.arms)
            continue
        for arm in v.arms:
            measured, rated = {}, {}
            for survey in Survey.objects.filter(made_by="study measured", instrument=name, tick=tick,
                                                 page=1).order_by("run_id"):  # the arm's runs, as the report pools them
                if f"intervention={members[survey.run_id]}" != arm.arm:
                    continue
                for sheet, sc in scored(inst, sheets(survey.run_id, survey.administration)):
                    measured[f"{survey.run_id}:{sheet.agent}"] = sc.domains
                    rated[f"{survey.run_id}:{sheet.agent}"] = kept[sheet.agent]
            assert len(measured) == arm.agents == 16
            expected = mtmm(rated, measured, seed_for(study.name, "validity", name, tick, arm.arm) + 50)
            assert arm.persona["matrix"] == expected["matrix"] and arm.persona["convergent"] == expected["convergent"]
            assert arm.persona["discriminant"] == expected["discriminant"] and arm.persona["domains"] == list("NEOAC")
            assert all(c["n"] == 16 and c["interval"][0] <= c["value"] <= c["interval"][1]
                       for c in arm.persona["convergent"].values())
            assert sum(arm.persona["convergent"][d]["value"] for d in "NEOAC") / 5 > 0.3  # planted: ~0.6 expected
            assert abs(arm.persona["discriminant"]["value"]) < 0.3  # planted independent: ~0 expected


def report_html(study) -> str:
    from django.contrib.auth.models import User

    client = Client()
    client.force_login(User.objects.create_user("reader", password="pw", is_staff=True))
    response = client.get(f"/studies/{study.pk}/report/")
    assert response.status_code == 200
    return response.content.decode()


def html_arm(html: str, v, arm: str) -> str:
    article = re.search(rf'<article class="validity-instrument" data-instrument="{v.name}" data-tick="{v.tick}">'
                        rf'(.*?)</article>', html, re.S).group(1)
    return re.search(rf'<div class="validity-arm" data-arm="{re.escape(arm)}">(.*?)</div>', article, re.S).group(1)
