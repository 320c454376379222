"""Agents measured against people (issue 40), on a real run in the database: a standard instrument
asked in pages at one tick leaves the run as it was, paging does not change the answers or scores,
and `manage.py validity` reports reliability beside people's figures and distances to people."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.engine_helpers import new_run
from tests.memory_helpers import jobs_inline, run_tables
from voyage.engine.budget import Budget
from voyage.engine.runner import advance, transcript_sha256
from voyage.gateway.prompts import prompt_text
from voyage.instruments.administer import administer, page_size_for, scored, sheets
from voyage.instruments.models import Survey
from voyage.instruments.standard_instruments import IPIP, instrument
from voyage.instruments.validity import TIDY_COLUMNS
from voyage.instruments.surveys import SurveyError
from voyage.models import LLMCall, ModelProfile, Run
from world.models import AgentState

pytestmark = pytest.mark.django_db
TICKS = 40


@pytest.fixture(scope="module")
def run(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock(), jobs_inline():
        made = new_run(seed=40, target_ticks=TICKS)
        advance(made, TICKS, memory_inline=True)
        Run.objects.filter(pk=made.pk).update(state=Run.FINISHED)
        made.refresh_from_db()
    yield made
    with django_db_blocker.unblock():
        Run.objects.filter(pk=made.pk).delete()


def validity(run, *args) -> tuple[dict, str]:
    out = io.StringIO()
    call_command("validity", str(run.pk), *args, stdout=out)
    text = out.getvalue().strip()
    return json.loads(text.splitlines()[-1]), text


def test_asked_in_pages_or_in_bigger_pages_the_answers_and_scores_are_the_same(run):
    big = administer(run, IPIP, 20, page_size=50)
    small = administer(run, IPIP, 20, page_size=7)
    assert [s.page for s in small] == list(range(1, 19)) and len({s.tick for s in small}) == 1
    agents = big[0].agents
    # one call per agent and page, each under the schema of its page's items only
    calls = LLMCall.objects.filter(run=run, purpose="survey", id__in=Survey.objects.filter(
        administration=small[0].administration).values("answers__call"))
    assert calls.count() == agents * 18
    # each prompt asks for exactly its page's keys (ipip001-ipip007 on page 1, ...)
    page_of = {s.pk: s.page for s in small}
    for answer in Survey.objects.get(pk=small[2].pk).answers.select_related("call")[:3]:
        prompt = prompt_text(answer.call.prompt)
        assert '"ipip015", "ipip016"' in prompt and "ipip014" not in prompt and "ipip022" not in prompt
        assert page_of[answer.survey_id] == 3
    one, many = sheets(run, big[0].administration), sheets(run, small[0].administration)
    assert [s.answers for s in one] == [s.answers for s in many]
    assert len(one[0].answers) == 120 and None not in one[0].answers.values()
    inst = instrument(IPIP)
    assert [sc.domains for _, sc in scored(inst, one)] == [sc.domains for _, sc in scored(inst, many)]


def test_the_page_size_is_the_answering_profiles_unless_given(run):
    """A model profile says how many items it answers in one call (small models keep fewer); the run's
    instruments route or a named profile gives it, and an explicit page size overrides it."""
    with pytest.raises(ValidationError, match="1 to 50 items a call"):
        ModelProfile(name="x", instrument_page_size=0).full_clean()
    ModelProfile.objects.create(name="small pages", kind=ModelProfile.OFFLINE, instrument_page_size=40)
    two = list(AgentState.objects.filter(run=run).order_by("persona__key").values_list("persona__key", flat=True)[:2])
    assert page_size_for(run, None) == 30  # the run's instruments route: the offline policy, no profile
    named = administer(run, IPIP, 10, two, profile="small pages")
    assert [len(s.questionnaire["items"]) for s in named] == [40, 40, 40]
    given = administer(run, IPIP, 10, two, profile="small pages", page_size=24)
    assert [s.page for s in given] == [1, 2, 3, 4, 5]
    assert [s.answers for s in sheets(run, named[0].administration)] == \
        [s.answers for s in sheets(run, given[0].administration)]
    with pytest.raises(SurveyError, match="no such model profile"):
        administer(run, IPIP, 10, two, profile="nobody")


def test_validity_leaves_transcript_memories_and_budget_as_they_were_and_reports_against_people(run, tmp_path):
    Run.objects.filter(pk=run.pk).update(budget_tokens=10**12)
    run.refresh_from_db()
    try:
        sha, tables, spent = transcript_sha256(run), run_tables(run), Budget(run).tokens
        answers = tmp_path / "answers.csv"
        report, text = validity(run, "--instrument", IPIP, "--at-tick", "10", "--retest-tick", "30",
                                "--page-size", "40", "--answers", str(answers), "-o", str(tmp_path / "v.json"))
        gss, _ = validity(run, "--instrument", "gss-trust", "--at-tick", "30", "--year", "1972")
        now, _ = validity(run, "--instrument", "gss-trust", "--year", "1972")  # no tick given: as they stand now
        assert transcript_sha256(run) == sha
        assert run_tables(run) == tables
        assert Budget(run).tokens == spent
    finally:
        Run.objects.filter(pk=run.pk).update(budget_tokens=None)
        run.refresh_from_db()
    assert report["scripted"] and report["tick"] == 10 and report["retest_tick"] == 30
    assert now["tick"] == TICKS and gss["tick"] == 30
    assert json.loads((tmp_path / "v.json").read_text()) == report
    for d in "NEOAC":
        row = report["domains"][d]
        for key in ("alpha", "omega", "retest_icc", "persona_r"):
            low, high = row[key]["interval"]
            assert low <= row[key]["value"] <= high and row[key]["n"] == report["agents"]
        assert row["alpha"]["people"]["value"] == 0.84 and "Johnson" in row["alpha"]["people"]["source"]
        assert row["persona_r"] == {**report["persona_consistency"]["convergent"][d], "people": None,
                                    "what": row["persona_r"]["what"]}
        assert row["persona_r"]["value"] > 0.2  # the offline judge and the agents share the planted traits
        assert row["alpha"]["value"] > 0.7  # the offline policy's planted traits hold together
    assert "scripted" in text.splitlines()[0]
    rows = list(csv.DictReader(answers.open()))
    assert tuple(rows[0]) == TIDY_COLUMNS and len(rows) == 120 * report["agents"]
    assert {r["tick"] for r in rows} == {"10"} and rows[0]["domain"] == "N" and rows[8]["key"] == "-1"
    refs = {r["item"]: r for r in gss["references"]}
    assert refs["trust"]["people_shares"] == [0.46, 0.54] and "only the share" in refs["trust"]["split"]
    assert refs["trust"]["options"] == ["most people can be trusted", "any other answer"]
    assert 0 <= refs["trust"]["tv_distance"]["value"] <= 1
    assert refs["trust"]["wasserstein"]["value"] == pytest.approx(refs["trust"]["tv_distance"]["value"])


def test_a_reference_csv_measures_any_item_and_bad_input_is_named(run, tmp_path):
    good = tmp_path / "people.csv"
    good.write_text("item,option,share\nipip001,1,0.1\nipip001,2,0.2\nipip001,3,0.3\nipip001,4,0.2\n"
                    "ipip001,5,0.2\n")
    report, _ = validity(run, "--instrument", IPIP, "--at-tick", "10", "--reference", str(good))
    ref = report["references"][0]
    assert ref["item"] == "ipip001" and ref["people_shares"] == [0.1, 0.2, 0.3, 0.2, 0.2]
    assert sum(ref["agents_shares"]) == pytest.approx(1, abs=1e-3) and ref["tv_distance"]["n"] == report["agents"]
    bad = tmp_path / "bad.csv"
    bad.write_text("item,option,share\nipip001,1,0.5\nipip001,2,x\n")
    with pytest.raises(CommandError, match=r"--reference .*bad.csv: line 3: share 'x' is not a number"):
        validity(run, "--instrument", IPIP, "--reference", str(bad))
    with pytest.raises(CommandError, match="no instrument 'neo-ffi'.*ipip-neo-120"):
        validity(run, "--instrument", "neo-ffi")
    with pytest.raises(CommandError, match="no such model profile"):
        validity(run, "--instrument", IPIP, "--at-tick", "5", "--profile", "nobody")


def test_peoples_per_domain_figures_stand_beside_the_agents_where_the_data_file_gives_them():
    """The shipped IPIP-NEO-120 gives none (searched for, not found: docs/validity.md), so each domain
    shows people's mean alpha and no omega or retest; a per-domain figure added to `human_reliability`
    goes beside that domain's alpha, omega and retest in the report (and the study report: the same
    people_by_domain)."""
    import random
    from dataclasses import replace

    from voyage.instruments.administer import Sheet
    from voyage.instruments.validity import people_by_domain, reliability

    shipped = instrument(IPIP)
    assert all(v is None for d in "NEOAC" for v in people_by_domain(shipped, d).values())
    r = random.Random(4)
    answers = [Sheet(f"p{n}", "", None, {i.id: r.randint(1, 5) for i in shipped.items}, {}) for n in range(6)]
    out = reliability(shipped, answers, None, seed=1)
    assert out["N"]["alpha"]["people"]["value"] == 0.84 and "mean alpha" in out["N"]["alpha"]["people"]["what"]
    assert out["N"]["omega"]["people"]["value"] is None and out["N"]["retest_icc"]["people"]["value"] is None
    given = replace(shipped, human={**shipped.human, "alpha": {"N": 0.9}, "omega": {"N": 0.91}, "retest": {"E": 0.8}})
    out = reliability(given, answers, None, seed=1)
    assert (out["N"]["alpha"]["people"]["value"], out["N"]["alpha"]["people"]["what"]) == (0.9, "this domain's alpha")
    assert out["N"]["omega"]["people"]["value"] == 0.91 and out["E"]["retest_icc"]["people"]["value"] == 0.8
    assert out["E"]["alpha"]["people"]["value"] == 0.84 and out["E"]["omega"]["people"]["value"] is None
