"""Making a study (all or nothing, through the run configuration's checks) and starting its runs a
bounded few at a time, within its budget."""
import csv
import io
import json
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from voyage.models import LLMCall, ModelProfile, Run
from voyage.studies import scheduler
from voyage.studies.config import StudyError, StudyPlan, create_study
from voyage.studies.models import Study, StudyRun

pytestmark = pytest.mark.django_db


def plan(**over):
    fields = dict(name="hot window", scenario="1912", target_ticks=5,
                  axes={"hot_memory_limit": ["30", "50"], "seed": ["1", "2"]})
    return StudyPlan(**{**fields, **over})


def test_a_study_makes_one_waiting_run_per_cell():
    study = create_study(plan(base={"attrition_threshold": "60"}))
    members = list(StudyRun.objects.filter(study=study).select_related("run"))
    assert [(m.cell["hot_memory_limit"], m.cell["seed"]) for m in members] == [
        ("30", "1"), ("30", "2"), ("50", "1"), ("50", "2")]
    for m in members:
        assert m.run.hot_memory_limit == int(m.cell["hot_memory_limit"]) and m.run.seed == int(m.cell["seed"])
        assert m.run.attrition_threshold == 60 and m.run.target_ticks == 5
        # waiting, not queued: the worker's rescue must not start it behind the study's back
        assert m.run.state == Run.PAUSED and "waiting" in m.run.pause_reason and m.started_at is None
    assert study.parallel == 4  # no budget: all at once


def test_run_ahead_can_be_an_axis():
    study = create_study(plan(axes={"run_ahead": ["0", "3"]}, base={"schedule": "simultaneous"}))
    members = StudyRun.objects.filter(study=study).select_related("run").order_by("position")
    assert [(m.cell["run_ahead"], m.run.run_ahead, m.run.schedule) for m in members] == [
        ("0", 0, "simultaneous"), ("3", 3, "simultaneous")]


@pytest.mark.parametrize("over, words", [
    ({"axes": {"hot_memory_limit": ["30", "x"]}}, "hot_memory_limit='x'"),
    ({"axes": {"fatigue_warning": ["50", "90"]}}, "fatigue_warning=90"),
    ({"axes": {"profile": ["offline", "nope"]}}, "no model profile 'nope'"),
    ({"axes": {"bogus": ["1"]}}, "bogus: not a run parameter"),
    ({"scenario": "atlantis"}, "no scenario 'atlantis'"),
    ({"budget_cost": "lots"}, "not a number"),
    ({"budget_cost": 111790511.07}, "more than a study's budget holds"),  # found by the API's schemathesis run
    ({"budget_cost": "0.00001"}, "rounds to 0"),
    ({"target_ticks": 0}, "at least 1 tick"),
    ({"axes": {"run_ahead": ["2", "9"]}}, "run_ahead: run_ahead is the ticks .* to 8; got 9"),
    ({"axes": {"run_ahead": ["two"]}}, "run_ahead='two'"),
])
def test_bad_input_names_the_problem_and_writes_nothing(over, words):
    runs_before = Run.objects.count()
    with pytest.raises(StudyError, match=words):
        create_study(plan(**over))
    assert Study.objects.count() == 0 and Run.objects.count() == runs_before


def test_the_worker_gets_a_bounded_few_then_the_next_as_runs_settle():
    study = create_study(plan(parallel=2))
    assert scheduler.start(study) == [m.run_id for m in study.members.all()[:2]]
    runs = [m.run for m in study.members.select_related("run")]
    assert [Run.objects.get(pk=r.pk).state for r in runs] == ["queued", "queued", "paused", "paused"]
    assert [Run.objects.get(pk=r.pk).pause_reason != "" for r in runs] == [False, False, True, True]
    assert scheduler.start_next(study.pk) == []  # both slots busy
    Run.objects.filter(pk=runs[0].pk).update(state=Run.FINISHED, tick=5)
    assert scheduler.start_next(study.pk) == [runs[2].pk]
    Run.objects.filter(pk__in=[r.pk for r in runs[:3]]).update(state=Run.FINISHED, tick=5)
    assert scheduler.start_next(study.pk) == [runs[3].pk]
    Run.objects.filter(pk=runs[3].pk).update(state=Run.FAILED)
    assert scheduler.start_next(study.pk) == []
    assert Study.objects.get(pk=study.pk).state == Study.FINISHED


def test_a_settled_chunk_on_the_worker_starts_the_next_run():
    study = create_study(plan(parallel=1))
    first, second = [m.run_id for m in study.members.all()[:2]]
    scheduler.start(study)
    Run.objects.filter(pk=first).update(state=Run.FINISHED, tick=5)
    chained = {"func": "voyage.runs.tasks.run_chunk", "success": True, "result": {"run": first, "outcome": "chained"}}
    scheduler.after_task(None, func=None, task=chained)
    assert Run.objects.get(pk=second).state == Run.PAUSED  # a chained chunk settles nothing
    done = {**chained, "result": {"run": first, "outcome": "finished"}}
    scheduler.after_task(None, func=None, task=done)
    assert Run.objects.get(pk=second).state == Run.QUEUED


def test_a_spent_budget_starts_no_further_run_and_says_why():
    study = create_study(plan(budget_cost="0.01"))
    assert study.parallel == 1  # with a budget, one at a time unless told otherwise
    first = scheduler.start(study)[0]
    LLMCall.objects.create(run_id=first, tick=0, purpose="action", prompt_z=b"", cost=Decimal("0.012"))
    Run.objects.filter(pk=first).update(state=Run.FINISHED, tick=5)
    assert scheduler.start_next(study.pk) == []
    study.refresh_from_db()
    assert study.state == Study.STOPPED
    assert study.stop_reason == "cost budget reached: 0.0120 of 0.0100 spent; 3 run(s) not started"
    waiting = Run.objects.filter(study_member__study=study).exclude(pk=first)
    assert {r.state for r in waiting} == {Run.PAUSED}
    assert all(r.pause_reason.startswith("not started: cost budget reached") for r in waiting)


def test_the_command_makes_shows_and_tabulates_a_study(tmp_path):
    out = io.StringIO()
    call_command("study", "create", "--name", "cli", "--ticks", "3", "--vary", "seeds=2",
                 "--vary", "hot_memory_limit=30,50", "--no-start", stdout=out)
    made = json.loads(out.getvalue())
    assert made["runs"] == 4 and made["started"] == []
    call_command("study", "run", "cli", stdout=io.StringIO(), stderr=io.StringIO())
    status = io.StringIO()
    call_command("study", "status", "cli", "--json", stdout=status)
    progress = json.loads(status.getvalue())
    assert progress["study"]["state"] == "finished"
    assert [(r["tick"], r["state"]) for r in progress["runs"]] == [(3, "finished")] * 4
    path = tmp_path / "results.csv"
    call_command("study", "results", "cli", "-o", str(path), stderr=io.StringIO())
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 4
    assert [(r["hot_memory_limit"], r["seed"], r["day"]) for r in rows] == [
        ("30", "1", "1"), ("30", "2", "1"), ("50", "1", "1"), ("50", "2", "1")]
    assert int(rows[0]["calls"]) > 0


def test_the_command_reports_bad_input_clearly():
    with pytest.raises(CommandError, match="seeds=N takes one count"):
        call_command("study", "create", "--name", "x", "--ticks", "3", "--vary", "seeds=0")
    with pytest.raises(CommandError, match="there is no study 'nope'"):
        call_command("study", "status", "nope")


def test_a_priced_profile_can_be_an_axis():
    ModelProfile.objects.create(name="local", kind=ModelProfile.OPENAI, base_url="http://127.0.0.1:9/v1")
    study = create_study(plan(axes={"profile": ["offline", "local"]}))
    profiles = [m.run.profile and m.run.profile.name for m in study.members.select_related("run__profile")]
    assert profiles == [None, "local"]


def test_a_run_paused_by_hand_keeps_its_study_running():
    study = create_study(plan())
    ids = scheduler.start(study)
    Run.objects.filter(pk=ids[0]).update(state=Run.PAUSED, pause_reason="")  # a human paused it
    Run.objects.filter(pk__in=ids[1:]).update(state=Run.FINISHED, tick=5)
    assert scheduler.start_next(study.pk) == []
    assert Study.objects.get(pk=study.pk).state == Study.RUNNING
    Run.objects.filter(pk=ids[0]).update(state=Run.FINISHED, tick=5)
    scheduler.start_next(study.pk)
    assert Study.objects.get(pk=study.pk).state == Study.FINISHED


def test_a_long_study_name_still_names_its_runs():
    study = create_study(plan(name="n" * 120))
    assert all(len(m.run.name) == 120 and m.run.name.startswith("n" * 100) for m in study.members.select_related("run"))
