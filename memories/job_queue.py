"""Handing recorded memory jobs to the django-q2 "memory" cluster, once their tick has committed.
The task names the job's pending row, which holds the truth (memories.job_records); the task path
`memories.jobs.perform` is stored in every queued task and stays where it is."""
from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone
from django_q.tasks import async_task

from memories.job_records import MemoryJob, row_of
from memories.models import PendingMemoryJob

PERFORM = "memories.jobs.perform"


class _QuietEnqueue(logging.Filter):
    """A dream per sleeper and a compaction per agent every few hours: django-q2's INFO line for
    each enqueue would bury a batch run's progress bar."""

    def filter(self, record):
        return not record.getMessage().startswith("Enqueued [memory]")


logging.getLogger("django-q").addFilter(_QuietEnqueue())
log = logging.getLogger("voyage.memory")


def queue_jobs(jobs: list[MemoryJob]) -> None:
    for job in jobs:
        queue(job)


def queue(job: MemoryJob, name: str | None = None) -> str | None:
    """Called after a tick has committed: a broker that cannot take the job must not fail a run
    whose tick is already safe. A job the broker would not take keeps its pending row unqueued,
    and the run's next `advance` (or the memory cluster's rescue) hands it over again."""
    try:
        # One transaction: the pending row says `queued` exactly when the task was queued. (Outside
        # one, the ORM broker also closes and reopens the connection per task.)
        with transaction.atomic():
            name = name or job.name[:100]  # a row's own name (the rescue's), or the record's
            if not PendingMemoryJob.objects.filter(name=name).update(queued=True, queued_at=timezone.now()):
                row = row_of(job)
                row.queued = True
                row.save()
            return async_task(PERFORM, job.KIND, name, cluster="memory", task_name=name)
    except Exception:
        log.exception("could not queue memory job %s", job)
        return None
