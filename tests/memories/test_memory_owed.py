"""A run that still owes memory jobs (its ticks asked for them, no memory worker has done them): its
fixture and its forks do them first and carry the memory it would have had; a study's arms wait for
their base's jobs before the fork tick; the state says "finished; N memory jobs still running"."""
import io

import pytest

from memories import job_queue, jobs
from memories.digest import memory_tables
from memories.job_records import SHOW_LAG
from memories.models import Dream, PendingMemoryJob
from voyage.engine.runner import advance, create_run
from voyage.export.fixture import write_fixture
from voyage.models import Run
from voyage.runs.fork import fork
from voyage.runs.state import state_text
from voyage.studies.forks import not_ready
from world.models import Scenario

pytestmark = pytest.mark.django_db

TICKS = 60
PARAMS = dict(seed=5, target_ticks=TICKS, hot_memory_limit=10, compaction_memory_count=20)


@pytest.fixture
def owing(monkeypatch):
    """A paused run whose memory jobs were handed to a memory cluster that never ran them: the engine
    did those its prompts showed (asked SHOW_LAG ticks or more before one), the rest are owed."""
    monkeypatch.setattr(job_queue, "async_task", lambda *args, **kw: None)
    run = create_run(Scenario.objects.get(slug="edelweiss"), **PARAMS)
    advance(run, TICKS)
    Run.objects.filter(pk=run.pk).update(state=Run.PAUSED)
    run.refresh_from_db()
    assert jobs.pending(run.pk) > 3 and PendingMemoryJob.objects.filter(run=run, job="dreams").exists()
    return run


def test_a_fixture_taken_while_jobs_are_owed_carries_the_memory_they_write(owing):
    reference = create_run(Scenario.objects.get(slug="edelweiss"), **PARAMS)
    advance(reference, TICKS, memory_inline=True)
    out = io.StringIO()
    write_fixture(owing, out)
    assert jobs.pending(owing.pk) == 0
    assert memory_tables(owing) == memory_tables(reference)
    dreams = Dream.objects.filter(run=owing).count()
    assert dreams and out.getvalue().count('"model": "memories.dream"') == dreams


def owed_from(run) -> int:
    """A tick with jobs owed both before it and from it on."""
    ticks = sorted(PendingMemoryJob.objects.filter(run=run).values_list("tick", flat=True))
    assert ticks[0] > TICKS - 1 - SHOW_LAG  # the engine did the jobs of the ticks before
    return ticks[len(ticks) // 2] if ticks[len(ticks) // 2] > ticks[0] else ticks[0] + 1


def test_a_fork_does_the_jobs_of_the_ticks_it_replays_first(owing):
    at = owed_from(owing)
    before = jobs.owed_before(owing.pk, at)
    after = jobs.owed_before(owing.pk) [len(before):]
    assert before and after
    forked = fork(owing, at, memory_inline=True)
    assert jobs.owed_before(owing.pk, at) == [] and jobs.owed_before(owing.pk) == after  # the rest stay owed
    mine = memory_tables(forked)["dreams"]
    assert mine and mine == [d for d in memory_tables(owing)["dreams"] if d[1] < at]


def test_study_arms_wait_for_their_bases_memory_jobs_before_the_fork_tick(owing):
    tick = int(jobs.owed_before(owing.pk)[0].rsplit("-", 1)[1]) + 1
    assert f"memory jobs before tick {tick}" in not_ready(owing, tick)
    PendingMemoryJob.objects.filter(run=owing).delete()
    assert not_ready(owing, tick) == ""


def test_the_state_of_a_finished_run_says_what_it_still_owes():
    assert state_text("finished", 0) == "finished"
    assert state_text("finished", 1) == "finished; 1 memory job still running"
    assert state_text("finished", 7) == "finished; 7 memory jobs still running"
    assert state_text("running", 7) == "running"


def test_a_study_survey_does_the_jobs_its_tick_owes_first(owing):
    """A study's survey at T is asked of the agents as they were at T: the memory jobs its ticks up
    to T asked for are done first, the later ones stay owed."""
    from tests.instruments.test_questionnaire import EXAMPLE
    from voyage.instruments.models import Survey
    from voyage.instruments.questionnaire import read_questionnaire
    from voyage.studies.models import Study, StudyRun
    from voyage.studies.study_surveys import take_due

    at = owed_from(owing) - 1
    later = [n for n in jobs.owed_before(owing.pk) if n not in jobs.owed_before(owing.pk, at + 1)]
    assert jobs.owed_before(owing.pk, at + 1) and later
    Run.objects.filter(pk=owing.pk).update(state=Run.FINISHED)
    study = Study.objects.create(name="owed", scenario=owing.scenario, target_ticks=TICKS, axes={"seed": [owing.seed]},
                                 surveys=[{"tick": at, "questionnaire": read_questionnaire(EXAMPLE).as_dict()}])
    StudyRun.objects.create(study=study, run=owing, position=0, cell={"seed": owing.seed})
    assert take_due(study) == 1 and Survey.objects.filter(run=owing, tick=at).exists()
    assert jobs.owed_before(owing.pk, at + 1) == [] and jobs.owed_before(owing.pk) == later
