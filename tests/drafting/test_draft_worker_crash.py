"""Nothing half-made when the worker dies: a real `manage.py qcluster` (on this test's database
file) checks an edited draft that asks to be installed; the test SIGKILLs the whole cluster during
the draft's offline day. The job is then marked failed with the reason the moment someone looks
(its page, or the next draft), and no scenario was installed. The only test that kills a worker in
the middle of a draft (~15 s: a worker starting, and a draft's check and part of its day)."""
from __future__ import annotations

import os

import pytest
from django.db import connection

from voyage.bench.fleet import Worker, wait_for
from voyage.drafting.author import Spend, ask_stage, stage_request
from voyage.drafting.jobs import settle_abandoned, submit_check
from voyage.gateway.offline import OfflineModel
from voyage.models import DraftJob
from world.drafting.check import draft_problems
from world.drafting.limits import DraftAsk
from world.drafting.stages import STAGES, assemble
from world.models import Scenario

ASK = DraftAsk("A mountain hut above the Lotschental with a stove room, a drying room and a bunk loft.", people=5,
               rooms=6)


def scripted_text() -> str:
    """The offline policy's draft of ASK, checked (no day run)."""
    answers = {}
    for stage in STAGES:
        answers[stage] = ask_stage(OfflineModel(seed=0), stage_request(stage, ASK, answers), Spend())
    text, problems = draft_problems(assemble(answers), ASK)
    assert not problems, problems
    return text


@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_during_a_drafts_day_leaves_a_failed_job_and_no_scenario(tmp_path):
    scenarios = set(Scenario.objects.values_list("slug", flat=True))
    job = submit_check(scripted_text(), ASK)  # on the broker once committed, as the admin queues it
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(DATABASE_URL=f"sqlite:///{connection.settings_dict['NAME']}", PYTHONUNBUFFERED="1")
    worker = Worker(env, tmp_path / "worker.log")
    try:
        wait_for(lambda: DraftJob.objects.filter(pk=job.pk, step="the offline day").exists(), 120, interval=0.02,
                 what="the worker to reach the draft's offline day")
    finally:
        worker.kill()
    assert DraftJob.objects.get(pk=job.pk).state == DraftJob.DRAFTING
    assert settle_abandoned() == [job.pk]
    job.refresh_from_db()
    assert job.state == DraftJob.FAILED and not job.installed_slug and job.summary is None
    assert "the worker stopped while working on this draft" in job.error and "nothing was installed" in job.error
    assert set(Scenario.objects.values_list("slug", flat=True)) == scenarios
