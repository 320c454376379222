"""The memory work that must not hold up a tick: compaction (with era folding) and dreaming.

A tick asks for it (MemoryJob) and, once the tick has committed, the runner either runs it at once
(the batch runner: `run_inline`) or queues it on the django-q2 "memory" cluster (the worker, or a
batch run told that a memory worker is running: `queue_jobs`). A queued job is counted in
`memory_jobs_pending` until it is done. Delivery is at-least-once, so the jobs are idempotent
(unique constraints decide who wrote first)."""
from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import transaction
from django_q.tasks import async_task

from memories.models import PendingMemoryJob


class _QuietEnqueue(logging.Filter):
    """A dream per sleeper and a compaction per agent every few hours: django-q2's INFO line for
    each enqueue would bury a batch run's progress bar."""

    def filter(self, record):
        return not record.getMessage().startswith("Enqueued [memory]")


logging.getLogger("django-q").addFilter(_QuietEnqueue())
log = logging.getLogger("voyage.memory")


@dataclass(frozen=True)
class MemoryJob:
    job: str  # a job function of this module: "compact_agent" or "dreams"
    run_id: int
    args: tuple
    name: str  # unique per run and tick: the task's name, and its row in memory_jobs_pending


def compaction_job(run_id: int, agent_id: int, tick: int) -> MemoryJob:
    return MemoryJob("compact_agent", run_id, (run_id, agent_id, tick), f"compact_agent-{run_id}-{agent_id}-{tick}")


def dreams_job(run_id: int, tick: int, sleepers: list) -> MemoryJob:
    return MemoryJob("dreams", run_id, (run_id, sleepers), f"dreams-{run_id}-{tick}")


def run_inline(jobs: list[MemoryJob], gateway=None) -> None:
    """Do the jobs now, in this process, on the run's own gateway (the batch runner's way)."""
    for job in jobs:
        JOBS[job.job](*job.args, gateway=gateway)


def queue_jobs(jobs: list[MemoryJob]) -> None:
    for job in jobs:
        queue(job)


def queue(job: MemoryJob) -> str | None:
    """Called after a tick has committed: a broker that cannot take the job must not fail a run
    whose tick is already safe. A lost compaction is queued again as rows grow; a lost dream is
    only a night without one."""
    try:
        # One transaction: the pending row exists exactly when the task was queued. (Outside one, the
        # ORM broker also closes and reopens the connection per task.)
        with transaction.atomic():
            PendingMemoryJob.objects.get_or_create(name=job.name[:100], defaults={"run_id": job.run_id})
            return async_task("memories.jobs.perform", job.job, job.name[:100], *job.args, cluster="memory",
                              task_name=job.name[:100])
    except Exception:
        log.exception("could not queue memories.jobs.%s%s", job.job, job.args)
        return None


def perform(job: str, name: str, *args):
    """What a memory worker runs: the job, then its pending row goes."""
    done = JOBS[job](*args)
    PendingMemoryJob.objects.filter(name=name).delete()
    return done


def pending(run_id: int) -> int:
    return PendingMemoryJob.objects.filter(run_id=run_id).count()


def compact_agent(run_id: int, agent_id: int, tick: int, gateway=None) -> int:
    from memories.compaction import compact

    return len(compact(agent_id, tick=tick, gateway=gateway))


def dreams(run_id: int, sleepers: list, gateway=None) -> int:
    """The dreams of everyone who fell asleep at one tick: [[agent_id, tick], ...]."""
    from memories.dreams import dream

    rooms_of = {}  # the room names, read and indexed once for the whole ship's dreams
    return sum(dream(agent_id, tick, gateway=gateway, rooms_of=rooms_of) is not None for agent_id, tick in sleepers)


JOBS = {"compact_agent": compact_agent, "dreams": dreams}
