"""Believability as a study measure (issue 39): `study create --judge RUBRIC@DAY` has the judge score
that day of every run once it has finished (an instrument: the run is left as it was), each rubric
dimension becomes a measure per run (the mean over the day's judged agents) carried with the judge's
verdict, `study compare` gives its interval and test between arms with the verdict beside them, and
the report shows them with the verdict."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.memory_helpers import run_tables
from tests.oracle import assert_same, transcript
from voyage.engine.budget import Budget
from voyage.instruments.models import Judging
from voyage.judging.rubric import DEFAULT, load_rubric
from voyage.models import LLMCall, Run
from voyage.studies.foreground import run_study
from voyage.studies.models import Study
from voyage.studies.study_surveys import take_due

pytestmark = pytest.mark.django_db
DIMENSIONS = [d.id for d in load_rubric().dimensions]


def command(*args) -> str:
    out = io.StringIO()
    call_command("study", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def judged_study():
    command("create", "--name", "believed", "--scenario", "edelweiss", "--ticks", "20",
            "--vary", "memory=full,hot_window_only", "--vary", "seeds=2", "--judge", "default@1", "--no-start")
    study = Study.objects.get(name="believed")
    run_study(study, io.StringIO())
    return study


def test_each_dimension_is_a_measure_compared_between_arms_with_the_verdict(judged_study, staff):
    runs = list(Run.objects.filter(study_member__study=judged_study))
    before = {r.pk: (transcript(r), run_tables(r), Budget(r).tokens) for r in runs}
    assert take_due(judged_study) == 4  # every run judged on day 1, once
    assert take_due(judged_study) == 0  # and never again
    jobs = Judging.objects.filter(run__in=runs)
    assert jobs.count() == 4 and {j.summary["made_by"] for j in jobs} == {"study believed"}
    assert {j.verdict for j in jobs} <= {"reliable", "doubtful", "unreliable"} and all(j.scripted for j in jobs)
    for run in runs:  # an instrument: the run's events, memory and budget are as they were
        assert_same(transcript(run), before[run.pk][0])
        assert run_tables(run) == before[run.pk][1] and Budget(run).tokens == before[run.pk][2]
    assert LLMCall.objects.filter(run__in=runs, purpose="judge").count() == sum(j.summary["calls"] for j in jobs)

    rows = list(csv.DictReader(io.StringIO(command("results", "believed"))))
    assert len({r["run_id"] for r in rows}) == 4
    for dim in DIMENSIONS:
        assert all(1 <= float(r[f"judge_d1_{dim}"]) <= 5 for r in rows), dim
    job = jobs.get(run_id=int(rows[0]["run_id"]))
    mine = [s["score"] for s in job.scores if s["dimension"] == "world_voice" and s["score"] is not None]
    assert float(rows[0]["judge_d1_world_voice"]) == round(sum(mine) / len(mine), 4)  # the day's agents' mean
    assert rows[0]["judge_d1_verdict"] == f"{job.verdict} (scripted)"
    assert all(0 <= float(r["judge_d1_missing"]) <= 1 and 1 <= float(r["judge_d1_overall"]) <= 5 for r in rows)

    [line] = [json.loads(x) for x in command("compare", "believed", "--measure", "judge_d1_overall").splitlines()]
    assert line["arm"] == "memory=hot_window_only" and line["baseline"] == "memory=full"
    assert line["n"] == line["n_baseline"] == 2 and line["ci_low"] <= line["diff"] <= line["ci_high"]
    assert line["p_value"] is not None and line["verdict"].split(" ")[0] in ("reliable", "doubtful", "unreliable")
    everything = [json.loads(x) for x in command("compare", "believed", "--all").splitlines()]
    judged = [c for c in everything if c["measure"].startswith("judge_d1_")]
    assert {c["measure"] for c in judged} == {f"judge_d1_{d}" for d in [*DIMENSIONS, "overall", "missing"]}
    assert all("verdict" in c for c in judged) and not any("verdict" in c for c in everything if c not in judged)
    with pytest.raises(CommandError, match="is the judge's verdict, not a number"):
        command("compare", "believed", "--measure", "judge_d1_verdict")

    # the report: believability beside the verdict
    page = staff.get(f"/studies/{judged_study.pk}/report/").content.decode()
    row = page.split('<tr class="measure" data-measure="judge_d1_persona_adherence"', 1)[1].split("</tr>", 1)[0]
    assert row.count('class="verdict"') == 3  # beside each arm's mean and beside the difference
    assert "(scripted)" in row
    assert 'data-measure="judge_d1_verdict"' not in page  # words, not a measure row


def test_scenes_judged_in_a_study_are_measures_of_their_own():
    command("create", "--name", "scenes believed", "--scenario", "edelweiss", "--ticks", "20",
            "--vary", "memory=full,hot_window_only", "--judge", "default@1:scenes=1", "--no-start")
    study = Study.objects.get(name="scenes believed")
    assert study.judging[0]["scenes"] == 1
    run_study(study, io.StringIO())
    take_due(study)
    jobs = {j.run_id: j for j in Judging.objects.filter(run__study_member__study=study)}
    assert len(jobs) == 2
    rows = list(csv.DictReader(io.StringIO(command("results", "scenes believed"))))
    scene_dims = ("social_plausibility", "world_voice", "non_repetition")
    for r in rows:
        job = jobs[int(r["run_id"])]
        [key] = job.summary["options"]["scenes"]
        for dim in scene_dims:  # the scene's own mean, apart from the agents'
            mine = [s["score"] for s in job.scores if s["agent"] == key and s["dimension"] == dim]
            theirs = [s["score"] for s in job.scores if not s["agent"].startswith("scene:")
                      and s["dimension"] == dim and s["score"] is not None]
            assert float(r[f"judge_d1_scene_{dim}"]) == round(sum(mine) / len(mine), 4)
            assert float(r[f"judge_d1_{dim}"]) == round(sum(theirs) / len(theirs), 4)
        assert "judge_d1_scene_persona_adherence" not in r  # not asked of a scene
    [line] = [json.loads(x) for x in command("compare", "scenes believed", "--measure",
                                             "judge_d1_scene_world_voice").splitlines()]
    assert line["verdict"].split(" ")[0] in ("reliable", "doubtful", "unreliable")


def test_a_judge_that_cannot_be_used_is_refused(tmp_path):
    base = ("create", "--name", "refused", "--scenario", "edelweiss", "--ticks", "40", "--no-start")
    with pytest.raises(CommandError, match=r"the runs go to tick 40 \(day 1\); judge a day from 1 to 1"):
        command(*base, "--judge", "default@2")
    with pytest.raises(CommandError, match="write RUBRIC@DAY"):
        command(*base, "--judge", "default")
    bad = tmp_path / "r.yaml"
    bad.write_text("rubric: mine\ndimensions:\n  - id: a\n    question: q?\n")
    with pytest.raises(CommandError, match=r"dimensions\[0\].anchors \(line 3\): missing"):
        command(*base, "--judge", f"{bad}@1")
    for spec in ("default@1:scenes=21", "default@1:scenes=x", "default@1:rooms=2"):
        with pytest.raises(CommandError, match=r"after RUBRIC@DAY write :scenes=N, N from 0 to 20"):
            command(*base, "--judge", spec)
    agents_only = tmp_path / "agents.yaml"
    agents_only.write_text(DEFAULT.read_text().replace(", scene]", "]"))
    with pytest.raises(CommandError, match="has no dimension that reads scene, so it cannot judge scenes"):
        command(*base, "--judge", f"{agents_only}@1:scenes=1")
    with pytest.raises(CommandError, match="day 1 is judged twice"):
        command(*base, "--judge", "default@1", "--judge", "default@1")
    assert not Study.objects.filter(name="refused").exists()
