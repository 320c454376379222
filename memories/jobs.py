"""The memory work that must not hold up a tick: compaction (with era folding) and dreaming.

A tick asks for it (MemoryJob) and records it, in the tick's own transaction, as a row of
memory_jobs_pending (`record`). Once the tick has committed, the runner either does it at once (the
batch runner: `run_inline`) or queues it on the django-q2 "memory" cluster (the worker, or a batch
run told that a memory worker is running: `queue_jobs`). The row goes when the job is done, so a
process killed between a tick's commit and its jobs leaves them recorded, and the run's next
`advance` hands them over before its next tick (`unfinished`): the same memories, summaries and
calls as a run never interrupted. Delivery is at-least-once, so the jobs are idempotent (unique
constraints decide who wrote first)."""
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


def record(jobs: list[MemoryJob]) -> None:
    """Write the jobs' pending rows: called inside the transaction of the tick that asks for them."""
    PendingMemoryJob.objects.bulk_create([
        PendingMemoryJob(run_id=job.run_id, name=job.name[:100], job=job.job, args=list(job.args)) for job in jobs
    ])


def unfinished(run_id: int) -> list[MemoryJob]:
    """The recorded jobs of a run that no memory worker was given and no batch runner finished, in
    the order their ticks asked for them."""
    rows = (PendingMemoryJob.objects.filter(run_id=run_id, queued=False).exclude(job="")
            .order_by("id").values_list("job", "args", "name"))
    return [MemoryJob(job, run_id, tuple(args), name) for job, args, name in rows]


def run_inline(jobs: list[MemoryJob], gateway=None) -> None:
    """Do the jobs now, in this process, on the run's own gateway (the batch runner's way); each
    one's pending row goes once it is done."""
    for job in jobs:
        JOBS[job.job](*job.args, gateway=gateway)
        PendingMemoryJob.objects.filter(name=job.name[:100]).delete()


def queue_jobs(jobs: list[MemoryJob]) -> None:
    for job in jobs:
        queue(job)


def queue(job: MemoryJob) -> str | None:
    """Called after a tick has committed: a broker that cannot take the job must not fail a run
    whose tick is already safe. A job the broker would not take keeps its pending row unqueued,
    and the run's next `advance` hands it over again (`unfinished`)."""
    try:
        # One transaction: the pending row says `queued` exactly when the task was queued. (Outside
        # one, the ORM broker also closes and reopens the connection per task.)
        with transaction.atomic():
            PendingMemoryJob.objects.update_or_create(
                name=job.name[:100], defaults={"queued": True},
                create_defaults={"run_id": job.run_id, "job": job.job, "args": list(job.args), "queued": True})
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
