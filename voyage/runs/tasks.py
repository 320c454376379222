"""The worker side of a run: django-q2 tasks that advance it in bounded chunks of ticks.

A run is a chain: each chunk claims the run, advances it up to VOYAGE_CHUNK_TICKS ticks (or until
VOYAGE_CHUNK_SECONDS have passed), releases it and queues the next chunk. Delivery is at least
once, so every chunk is safe to run twice or concurrently:
- the claim is a conditional UPDATE naming the tick the chunk starts from, and only one chunk can
  win it (row count 1); a chunk for a tick the run has already left is a no-op that queues nothing,
  so duplicated chunks never multiply the chain;
- each tick commits with a conditional `tick=old` update (TickWriter.commit), so even a claim taken
  over by mistake can never commit a tick twice.
A worker that vanished (SIGKILL, a lost machine) leaves a claim behind: `rescue_runs` takes it over
when the claimant's process is gone (same host) or its heartbeat is stale, and queues the chain
again. It runs when a worker process starts and every minute from a django-q2 schedule.
"""
from __future__ import annotations

import logging
import socket
import time
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone
from django_q.exceptions import TimeoutException

from memories import attempts as memory_attempts
from voyage import run_transitions as transitions
from voyage.engine.runner import advance
from voyage.engine.writer import TickConflict
from voyage.models import Run
from voyage.processes import claimant_gone, worker_id  # noqa: F401 (worker_id: used by callers of this module)

log = logging.getLogger("voyage.tasks")  # the name it always had: log filters keep working

ACTIVE = transitions.ACTIVE
RESCUE_SCHEDULE = "voyage: rescue runs whose worker vanished"
# django-q2 stores a task's function as a dotted path, in queued tasks and in schedules.
RUN_CHUNK = "voyage.runs.tasks.run_chunk"
RESCUE_TASK = "voyage.runs.tasks.rescue_task"
# What tasks and schedules stored before voyage/runs/ existed name: voyage/tasks.py keeps them
# importable, and ensure_minutely points an old schedule at the new path.
OLD_PATHS = {"voyage.tasks.run_chunk": RUN_CHUNK, "voyage.tasks.rescue_task": RESCUE_TASK}
LOOK_EVERY_S = 0.25  # how often a chunk checks that its run is still active and still its own


class ChunkDone(Exception):
    """Raised from the per-tick callback to end a chunk early (time budget spent, run paused)."""


def tick_queue() -> str:
    """The default cluster's queue. Named explicitly so that a task queued from the memory
    cluster's processes still lands on the tick queue."""
    return settings.Q_CLUSTER["name"]


def queue_chunk(run_id: int, from_tick: int) -> None:
    from django_q.tasks import async_task

    async_task(RUN_CHUNK, run_id, from_tick, cluster=tick_queue(),
               task_name=f"run {run_id} from tick {from_tick}")


def claim(run_id: int, from_tick: int, me: str) -> bool:
    """Take the run for this chunk: it must still be at `from_tick`, active, and unclaimed (or
    claimed by a worker whose heartbeat is stale). Exactly one concurrent caller gets True."""
    stale_before = timezone.now() - timedelta(seconds=settings.VOYAGE_STALE_SECONDS)
    held_by_none_alive = Q(claimed_by="") | Q(claimed_by=me) | Q(heartbeat_at__lt=stale_before)
    return transitions.claim(run_id, me, where=Q(tick=from_tick) & held_by_none_alive)


def run_chunk(run_id: int, from_tick: int) -> dict:
    """One link of a run's chain (the django-q2 task). Returns what it did, for the task log."""
    me = worker_id()
    outcome = {"run": run_id, "from": from_tick, "worker": me}
    if not claim(run_id, from_tick, me):
        log.info("chunk run=%s from=%s worker=%s skipped", run_id, from_tick, me)
        return {**outcome, "outcome": "skipped"}
    run = Run.objects.get(pk=run_id)
    until = min(run.target_ticks, from_tick + settings.VOYAGE_CHUNK_TICKS)
    deadline = time.monotonic() + settings.VOYAGE_CHUNK_SECONDS
    log.info("chunk run=%s from=%s worker=%s claimed", run_id, from_tick, me)

    next_look = 0.0

    def after_tick(tick: int) -> None:
        nonlocal next_look
        now = time.monotonic()
        if now > deadline:
            raise ChunkDone("time budget spent")
        if now >= next_look:  # a pause is noticed within a tick or two; overnight ticks take ~1 ms
            next_look = now + LOOK_EVERY_S
            if not Run.objects.filter(pk=run_id, state__in=ACTIVE, claimed_by=me).exists():
                raise ChunkDone("paused, stopped or taken over")

    try:
        advance(run, until, on_tick=after_tick)
    except ChunkDone:
        pass
    except TickConflict:
        # Someone else committed this tick: our claim was taken over. Leave the run to them.
        log.warning("chunk run=%s worker=%s lost the run at tick %s", run_id, me, run.tick)
        return {**outcome, "to": run.tick, "outcome": "lost"}
    except (Exception, TimeoutException) as exc:
        fail(run_id, me, f"{type(exc).__name__}: {exc}")
        log.exception("chunk run=%s from=%s worker=%s failed at tick %s", run_id, from_tick, me, run.tick)
        if isinstance(exc, TimeoutException):
            raise
        return {**outcome, "to": run.tick, "outcome": "failed", "error": str(exc)}
    log.info("chunk run=%s from=%s to=%s worker=%s advanced", run_id, from_tick, run.tick, me)
    return {**outcome, "to": run.tick, "outcome": release(run_id, run.tick, me)}


def fail(run_id: int, me: str, reason: str) -> None:
    transitions.attempt(run_id, transitions.FAIL, dict(claimed_by=me), error=reason[:2000], claimed_by="")


def release(run_id: int, tick: int, me: str) -> str:
    """Hand the run back after a chunk: finished at its target, otherwise queue the next link.
    The claim is released BEFORE the next chunk is queued, or that chunk could find it still held."""
    if transitions.reach_target(run_id, me, tick):
        return "finished"
    if not Run.objects.filter(pk=run_id, claimed_by=me).update(claimed_by="", heartbeat_at=timezone.now()):
        return "lost"  # taken over (our heartbeat looked stale): the new holder runs the chain
    # Read the state after releasing: a resume racing with us may have queued its own chunk, and a
    # duplicate chunk for the same tick is harmless, while a missing one would stall the run.
    if Run.objects.filter(pk=run_id, state__in=ACTIVE).exists():
        queue_chunk(run_id, tick)
        return "chained"
    return "released"


# --- rescue: runs whose worker vanished ---------------------------------------------------------
def rescue_runs(unclaimed_too: bool = False) -> list[int]:
    """Queue the chain again for every active run whose worker vanished. With `unclaimed_too`
    (a worker starting), also for active runs nobody holds: their queued chunk may have died with
    the old worker (a duplicate is a no-op)."""
    host = socket.gethostname()
    stale_before = timezone.now() - timedelta(seconds=settings.VOYAGE_STALE_SECONDS)
    rescued = []
    for run_id, tick, claimed_by, heartbeat in Run.objects.filter(state__in=ACTIVE).values_list(
            "pk", "tick", "claimed_by", "heartbeat_at"):
        if heartbeat is None and not claimed_by:
            continue  # never started through voyage.runs.control: configured and ready, or run in the foreground
        stale = heartbeat is None or heartbeat < stale_before
        if claimed_by:
            if not (stale or claimant_gone(claimed_by, host)):
                continue
            # Only if the claim is still the one we judged dead.
            if not Run.objects.filter(pk=run_id, claimed_by=claimed_by, tick=tick).update(claimed_by=""):
                continue
            log.warning("run %s: worker %s vanished at tick %s; queued again", run_id, claimed_by, tick)
        elif not (stale or unclaimed_too):
            continue
        queue_chunk(run_id, tick)
        rescued.append(run_id)
    return rescued


def rescue_task() -> list[int]:
    """The scheduled rescue (every minute on the tick cluster)."""
    return rescue_runs()


def ensure_rescue_schedule() -> None:
    ensure_minutely(RESCUE_SCHEDULE, RESCUE_TASK)


def ensure_minutely(name: str, func: str, cluster: str | None = None) -> None:
    """A django-q2 schedule running `func` every minute (on `cluster`, or the default one), made once."""
    from django_q.models import Schedule

    # Not get_or_create: workers starting together can both create it (the name is not unique), and
    # a duplicate must never make start() fail. Extra copies are removed instead.
    ids = list(Schedule.objects.filter(name=name).order_by("pk").values_list("pk", flat=True))
    if not ids:
        Schedule.objects.create(name=name, func=func, schedule_type=Schedule.MINUTES, minutes=1, repeats=-1,
                                cluster=cluster)
        return
    if len(ids) > 1:
        Schedule.objects.filter(pk__in=ids[1:]).delete()
    Schedule.objects.filter(pk=ids[0]).exclude(func=func).update(func=func)  # made by an older layout


def on_worker_spawn(sender, proc_name, **kwargs) -> None:
    """django-q2's post_spawn: a worker starting picks up what a killed one left (runs on the tick
    cluster, memory jobs on the memory cluster)."""
    from django_q.conf import Conf

    if Conf.SYNC:
        return
    if Conf.CLUSTER_NAME == "memory":
        return on_memory_spawn()
    if Conf.CLUSTER_NAME != tick_queue():
        return
    try:
        ensure_rescue_schedule()
        rescue_runs(unclaimed_too=True)
    except Exception:  # never keep a worker from starting; the schedule will retry
        log.exception("rescue at worker start failed")


def on_memory_spawn() -> None:
    """Memory jobs whose attempt died are handed out again now and checked every minute after."""
    try:
        ensure_minutely(memory_attempts.RESCUE_SCHEDULE, "memories.attempts.rescue_task", cluster="memory")
        memory_attempts.rescue(at_start=True)
    except Exception:  # never keep a worker from starting; the schedule will retry
        log.exception("memory rescue at worker start failed")
