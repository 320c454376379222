"""The memory work that must not hold up a tick: compaction (with era folding) and dreaming.

A tick asks for it (MemoryJob) and records it, in the tick's own transaction, as a row of
memory_jobs_pending (`record`), with what the job will read fixed there and then
(memories.job_inputs: the rows committed up to its tick, the agent's rung, whom it trusts). Once
the tick has committed, the runner either does it at once (the batch runner: `run_inline`) or
queues it on the django-q2 "memory" cluster (the worker, or a batch run told that a memory worker
is running: `queue_jobs`). Whoever does it claims the row, and the job's results are written in the
transaction that deletes the row (memories.attempts): a job is done once, a second delivery does
nothing, and a process killed anywhere leaves the row for the run's next `advance` (`unfinished`)
or the memory cluster's rescue. Since a job's inputs are fixed by its tick and one agent's jobs
apply in their ticks' order, the batch runner, the worker and a worker killed any number of times
write the same memories."""
from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from django.db import transaction
from django.utils import timezone
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

    def with_args(self, *args) -> "MemoryJob":
        return replace(self, args=tuple(args))


def compaction_job(run_id: int, agent_id: int, tick: int) -> MemoryJob:
    """Completed at commit with the row the agent's hot window then began at, and its rung."""
    return MemoryJob("compact_agent", run_id, (run_id, agent_id, tick), compaction_name(run_id, agent_id, tick))


def compaction_name(run_id: int, agent_id: int, tick: int | str) -> str:
    return f"compact_agent-{run_id}-{agent_id}-{tick}"


def dreams_job(run_id: int, tick: int, sleepers: list) -> MemoryJob:
    """`sleepers`: [[agent_id, tick the sleep began], ...], completed at commit (job_inputs)."""
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
    """Do the jobs now, in this process, on the run's own gateway (the batch runner's way)."""
    from memories.attempts import perform_on  # see JOBS below: why the job kinds are imported late

    for job in jobs:
        perform_on(job.name[:100], gateway)


def queue_jobs(jobs: list[MemoryJob]) -> None:
    for job in jobs:
        queue(job)


def queue(job: MemoryJob) -> str | None:
    """Called after a tick has committed: a broker that cannot take the job must not fail a run
    whose tick is already safe. A job the broker would not take keeps its pending row unqueued,
    and the run's next `advance` (or the memory cluster's rescue) hands it over again."""
    try:
        # One transaction: the pending row says `queued` exactly when the task was queued. (Outside
        # one, the ORM broker also closes and reopens the connection per task.)
        with transaction.atomic():
            PendingMemoryJob.objects.update_or_create(
                name=job.name[:100], defaults={"queued": True, "queued_at": timezone.now()},
                create_defaults={"run_id": job.run_id, "job": job.job, "args": list(job.args), "queued": True})
            return async_task("memories.jobs.perform", job.job, job.name[:100], *job.args, cluster="memory",
                              task_name=job.name[:100])
    except Exception:
        log.exception("could not queue memories.jobs.%s%s", job.job, job.args)
        return None


def perform(job: str, name: str, *args):
    """What a memory worker runs (the task's arguments name its pending row, which holds the truth):
    the agent's earlier jobs first, then this one; nothing if it is done already."""
    from memories.attempts import perform_on  # see JOBS below: why the job kinds are imported late

    return perform_on(name)


def pending(run_id: int) -> int:
    return PendingMemoryJob.objects.filter(run_id=run_id).count()


def owed_before(run_id: int, tick: int | None = None) -> list[str]:
    """The names of the run's pending jobs asked for by ticks before `tick` (all, without one), in
    the order their ticks asked for them. A job's name ends with its tick."""
    names = PendingMemoryJob.objects.filter(run_id=run_id).order_by("id").values_list("name", flat=True)
    return [n for n in names if tick is None or int(n.rsplit("-", 1)[1]) < tick]


def compact_agent(run_id: int, agent_id: int, tick: int, below_row: int | None = None, rung: int | None = None,
                  gateway=None, attempt=None) -> int:
    from memories.compaction import compact

    return len(compact(agent_id, tick=tick, below_row=below_row, rung=rung, gateway=gateway, attempt=attempt))


def dreams(run_id: int, sleepers: list, gateway=None, attempt=None) -> int:
    """The dreams of everyone who fell asleep at one tick: [[agent_id, tick, upto_row, rung, people], ...]
    (rows recorded before this field's time carry only [agent_id, tick])."""
    from memories.dreams import dream_all

    return dream_all(sleepers, gateway=gateway, attempt=attempt)


# The job kinds and their attempts import this module (to queue the jobs they owe: a compaction
# settles the agent's earlier ones first), and this module dispatches back to them: a cycle inside
# memories/ that the late imports in compact_agent, dreams, run_inline and perform stand for. It
# stays inside the package (the layers contract sees no import out of it); `memories.jobs.perform`
# must stay where it is, since django-q2 stores that path in every queued memory task.
JOBS = {"compact_agent": compact_agent, "dreams": dreams}
