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

from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Callable

from django.db import connection

from memories.attempts import perform_on
from memories.job_queue import queue, queue_jobs  # noqa: F401 (the runner's and the tests' names for them)
from memories.job_records import MemoryJob, owed_before, pending, record, unfinished  # noqa: F401 (same)


def run_inline(jobs: list[MemoryJob], gateway=None) -> None:
    """Do the jobs now, in this process, on the run's own gateway (the batch runner's way)."""
    for job in jobs:
        perform_on(job.name[:100], gateway)


class Behind:
    """The out-of-order schedule's memory jobs, done on a thread of their own (with its own database
    connection) as each tick hands them over, so that the schedule goes on starting calls while the
    dreams of a tick are written — at 2,048 agents a second a tick, which done at the commit held
    up every agent. The jobs are the ones a memory worker would do: their inputs are fixed by their
    tick's commit, they write what they write whoever does them and whenever, and a process killed
    meanwhile leaves them pending for the next `advance` (`unfinished`). One thread, which the
    schedule also writes its commits on (voyage/engine/ahead.py): what is handed to it is done in
    that order, so a tick's rows, then its jobs' (their calls), then the next tick's rows, as
    lock-step writes them. What reads the jobs' results waits first (`wait`): the prompts of a tick,
    for the jobs their tick shows (memories.working.WorkingMemory.ready), and a hard compaction, for
    all (it catches up on the agent's compactions itself, under the same claim)."""

    def __init__(self, memory: Callable):
        self.memory = memory
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="behind")
        self.asked: list[tuple[int, Future]] = []  # (the latest tick of a handful of jobs, their future)

    def __call__(self, jobs: list[MemoryJob]) -> None:
        self.asked.append((max(job.tick for job in jobs), self.thread.submit(self.memory, list(jobs))))

    def wait(self, through: int | None = None) -> None:
        """Until the jobs asked at ticks up to `through` (all, without) are done; raises their error."""
        left = []
        for tick, future in self.asked:
            if through is None or tick <= through:
                future.result()
            else:
                left.append((tick, future))
        self.asked = left

    def close(self, raising: bool = True) -> None:
        try:
            if raising:
                self.wait()
        finally:
            self.thread.submit(lambda: connection.close()).result()  # the thread's own (looked up there)
            self.thread.shutdown()


@contextmanager
def behind(working, memory: Callable):
    """`memory` on a thread of its own (Behind) for the out-of-order schedule, told to `working`
    (the run's WorkingMemory), which waits for it where its results are read. Not inside a
    transaction (a test's): another connection could neither see the tick's rows nor write."""
    if connection.in_atomic_block:
        yield memory
        return
    jobs = working.behind = Behind(memory)
    try:
        yield jobs
    except BaseException:
        jobs.close(raising=False)
        raise
    else:
        jobs.close()
    finally:
        working.behind = None


def perform(kind: str, name: str, *_stored_before_records):
    """What a memory worker runs: the task names the job's pending row (`name`), which holds the
    record; the agent's earlier jobs first, then this one; nothing if it is done already. A task
    queued before records also carries the job's fields by position: the row has them."""
    return perform_on(name)
