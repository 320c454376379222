"""The chunk task in-process: claims, chaining, failures, pauses, rescue of vanished workers."""
from __future__ import annotations

import os
import socket
from datetime import timedelta

import pytest
from django.utils import timezone

from voyage.engine.runner import advance as real_advance, create_run
from voyage.models import Event, Run
from voyage.runs import tasks
from world.models import Scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(settings):
    settings.VOYAGE_CHUNK_TICKS = 5
    return create_run(Scenario.objects.get(slug="1912"), seed=11, target_ticks=12)


def state(run):
    run.refresh_from_db()
    return run.tick, run.state, run.claimed_by, run.error


def test_only_one_claim_wins_and_a_stale_claim_is_taken_over(run):
    assert tasks.claim(run.pk, 0, "host-a:1")
    assert not tasks.claim(run.pk, 0, "host-b:2")
    assert state(run)[1:3] == ("running", "host-a:1")
    Run.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert tasks.claim(run.pk, 0, "host-b:2")
    assert state(run)[2] == "host-b:2"


def test_a_chunk_for_a_tick_the_run_has_left_does_nothing(run, queued):
    real_advance(run, 3)
    out = tasks.run_chunk(run.pk, 0)
    assert out["outcome"] == "skipped"
    assert state(run) == (3, "queued", "", "")
    assert queued == []


def test_chunks_advance_release_and_chain_until_the_target(run, queued):
    assert tasks.run_chunk(run.pk, 0)["outcome"] == "chained"
    assert state(run) == (5, "running", "", "")
    assert queued == [(run.pk, 5)]
    tasks.run_chunk(run.pk, 5)
    assert tasks.run_chunk(run.pk, 10) == {"run": run.pk, "from": 10, "worker": tasks.worker_id(), "to": 12,
                                           "outcome": "finished"}
    assert state(run) == (12, "finished", "", "")
    assert queued == [(run.pk, 5), (run.pk, 10)]
    seqs = list(Event.objects.filter(run=run).values_list("seq", flat=True))
    assert seqs == list(range(len(seqs)))


def test_a_chunk_that_raises_marks_the_run_failed_with_the_reason(run, queued, monkeypatch):
    def broken(run, until_tick, on_tick=None, **kw):
        real_advance(run, 2)
        raise ConnectionError("model endpoint unreachable")

    monkeypatch.setattr(tasks, "advance", broken)
    out = tasks.run_chunk(run.pk, 0)
    assert out["outcome"] == "failed"
    assert state(run) == (2, "failed", "", "ConnectionError: model endpoint unreachable")
    assert queued == []
    # A failed run is not picked up by anyone until it is resumed.
    assert tasks.run_chunk(run.pk, 2)["outcome"] == "skipped"


def test_pausing_mid_chunk_stops_after_the_current_tick(run, queued, monkeypatch):
    def pause_at_two(run_, until_tick, on_tick=None, **kw):
        def hook(tick):
            if tick == 2:
                Run.objects.filter(pk=run_.pk).update(state=Run.PAUSED)
            on_tick(tick)
        return real_advance(run_, until_tick, on_tick=hook)

    monkeypatch.setattr(tasks, "advance", pause_at_two)
    monkeypatch.setattr(tasks, "LOOK_EVERY_S", 0)
    assert tasks.run_chunk(run.pk, 0)["outcome"] == "released"
    assert state(run) == (2, "paused", "", "")
    assert queued == []


def test_a_chunk_ends_when_its_time_budget_is_spent(run, queued, settings):
    settings.VOYAGE_CHUNK_SECONDS = 0  # the deadline has passed after the first tick
    assert tasks.run_chunk(run.pk, 0)["outcome"] == "chained"
    assert state(run)[0] == 1
    assert queued == [(run.pk, 1)]


def test_rescue_takes_over_dead_and_stale_claims_only(queued, settings):
    scenario = Scenario.objects.get(slug="1912")
    now = timezone.now()
    host = socket.gethostname()
    dead_here = create_run(scenario, target_ticks=5)
    alive_here = create_run(scenario, target_ticks=5)
    stale_elsewhere = create_run(scenario, target_ticks=5)
    fresh_elsewhere = create_run(scenario, target_ticks=5)
    paused = create_run(scenario, target_ticks=5)
    Run.objects.filter(pk=dead_here.pk).update(state="running", claimed_by=f"{host}:999999999", heartbeat_at=now)
    Run.objects.filter(pk=alive_here.pk).update(state="running", claimed_by=f"{host}:{os.getppid()}", heartbeat_at=now)
    Run.objects.filter(pk=stale_elsewhere.pk).update(state="running", claimed_by="elsewhere:12",
                                                     heartbeat_at=now - timedelta(seconds=settings.VOYAGE_STALE_SECONDS + 5))
    Run.objects.filter(pk=fresh_elsewhere.pk).update(state="running", claimed_by="elsewhere:13", heartbeat_at=now)
    Run.objects.filter(pk=paused.pk).update(state="paused", claimed_by="", heartbeat_at=now - timedelta(days=1))

    # Runs that other tests of the session left active may be re-queued too: look at this test's own.
    mine = {dead_here.pk, alive_here.pk, stale_elsewhere.pk, fresh_elsewhere.pk, paused.pk}
    assert mine & set(tasks.rescue_runs()) == {dead_here.pk, stale_elsewhere.pk}
    assert sorted(q for q in queued if q[0] in mine) == sorted([(dead_here.pk, 0), (stale_elsewhere.pk, 0)])
    assert state(dead_here)[2] == "" and state(alive_here)[2] == f"{host}:{os.getppid()}"
    # A worker starting also re-queues active runs nobody holds (their queued chunk may be lost).
    queued.clear()
    assert mine & set(tasks.rescue_runs(unclaimed_too=True)) == {dead_here.pk, stale_elsewhere.pk}


def test_a_worker_that_lost_its_claim_does_not_fail_or_chain_the_run(run, queued, monkeypatch):
    def taken_over(run_, until_tick, on_tick=None, **kw):
        real_advance(run_, 1)
        Run.objects.filter(pk=run_.pk).update(claimed_by="other:1")  # a rescuer judged us dead
        on_tick(1)

    monkeypatch.setattr(tasks, "advance", taken_over)
    assert tasks.run_chunk(run.pk, 0)["outcome"] == "lost"
    assert state(run) == (1, "running", "other:1", "")
    assert queued == []


def test_the_rescue_schedule_exists_once():
    from django_q.models import Schedule

    tasks.ensure_rescue_schedule()
    tasks.ensure_rescue_schedule()
    schedule = Schedule.objects.get(name=tasks.RESCUE_SCHEDULE)
    # Two workers starting together may both have created one: the extra goes, nothing raises.
    Schedule.objects.create(name=tasks.RESCUE_SCHEDULE, func="voyage.runs.tasks.rescue_task", schedule_type="I", minutes=1)
    tasks.ensure_rescue_schedule()
    assert list(Schedule.objects.filter(name=tasks.RESCUE_SCHEDULE)) == [schedule]
    assert (schedule.func, schedule.schedule_type, schedule.minutes) == ("voyage.runs.tasks.rescue_task", "I", 1)
