"""Standard instruments in studies (issue 40): `study create --instrument NAME@TICK` asks every arm's run
once it has finished; its figures become `validity_*` measures that `study compare` tests between arms
(whether an intervention moved the society toward people's answers), and the instrument's 120 items do
not flood the survey measures."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from voyage.instruments.models import Survey
from voyage.studies.models import Study
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
