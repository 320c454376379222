"""The memory work that must not hold up a tick: compaction (with era folding) and dreaming.

A tick asks for it with a record (memories.job_records: `Compaction`, `Dreams`) and records it, in
the tick's own transaction, as a row of memory_jobs_pending (`record`), with what the job will read
fixed there and then (memories.job_inputs: the rows committed up to its tick, the agent's rung, whom
it trusts). Once the tick has committed, the runner either does it at once (the batch runner:
`run_inline`) or queues it on the django-q2 "memory" cluster (the worker, or a batch run told that a
memory worker is running: `queue_jobs`, memories.job_queue). Whoever does it claims the row, and the
job's results are written in the transaction that deletes the row (memories.attempts): a job is done
once, a second delivery does nothing, and a process killed anywhere leaves the row for the run's
next `advance` (`unfinished`) or the memory cluster's rescue. Since a job's inputs are fixed by its
tick and one agent's jobs apply in their ticks' order, the batch runner, the worker and a worker
killed any number of times write the same memories.

`memories.jobs.perform` is the task path django-q2 stores in every queued memory task: it stays here."""
from __future__ import annotations

from memories.attempts import perform_on
from memories.job_queue import queue, queue_jobs  # noqa: F401 (the runner's and the tests' names for them)
from memories.job_records import MemoryJob, owed_before, pending, record, unfinished  # noqa: F401 (same)


def run_inline(jobs: list[MemoryJob], gateway=None) -> None:
    """Do the jobs now, in this process, on the run's own gateway (the batch runner's way)."""
    for job in jobs:
        perform_on(job.name[:100], gateway)


def perform(kind: str, name: str, *_stored_before_records):
    """What a memory worker runs: the task names the job's pending row (`name`), which holds the
    record; the agent's earlier jobs first, then this one; nothing if it is done already. A task
    queued before records also carries the job's fields by position: the row has them."""
    return perform_on(name)
