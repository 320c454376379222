"""Drafts on the worker. A real model drafts for minutes, far longer than a web request should
wait, so the admin records a DraftJob and queues `draft_task` on the worker (django-q2, the
default cluster, with a timeout of its own: VOYAGE_DRAFT_TIMEOUT); the draft's page shows the
job's step until it ends, then its report and file.

Delivery is at least once: the task claims the job with a conditional update (queued ->
drafting), so a task delivered twice drafts once. Nothing is half-made: a draft is installed in the
same transaction that marks its job done, so a worker that dies leaves the job `drafting` and the
world not installed; `settle_abandoned` (run when a draft's page is read, and before each draft)
then marks it failed with the reason. A model that fails or never repairs ends the job `done` with
a report that says so, and nothing installed."""
from __future__ import annotations

import json
import logging
import socket
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_q.exceptions import TimeoutException

from voyage.drafting.pipeline import draft_world, install_draft, recheck
from voyage.drafting.profile import author_for
from voyage.models import DraftJob
from voyage.processes import claimant_gone, worker_id
from world.drafting.limits import DraftAsk

log = logging.getLogger("voyage.drafting")
DRAFT_TASK = "voyage.drafting.jobs.draft_task"  # stored by django-q2 as a dotted path: keep it importable
LOST = ("the worker stopped while working on this draft (killed, restarted or out of time: "
        "VOYAGE_DRAFT_TIMEOUT={timeout} s); nothing was installed. Draft it again.")


def submit(ask: DraftAsk, *, profile: str, budget: float, projection: str, user=None) -> DraftJob:
    """Record a draft from a paragraph and queue it on the worker once the record has committed."""
    return _submit(DraftJob(kind=DraftJob.DRAFT, paragraph=ask.paragraph, people=ask.people, rooms=ask.rooms,
                            repair_rounds=ask.repair_rounds, profile=profile or "", budget=budget,
                            projection=projection[:300], created_by=user))


def submit_check(text: str, ask: DraftAsk, *, user=None) -> DraftJob:
    """Record a draft as the storyteller edited it, to be checked, proved and installed on the worker."""
    return _submit(DraftJob(kind=DraftJob.CHECK, paragraph=ask.paragraph, people=ask.people, rooms=ask.rooms,
                            text=text, install=True, created_by=user))


def _submit(job: DraftJob) -> DraftJob:
    with transaction.atomic():
        job.save()
        transaction.on_commit(partial(queue, job.pk))
    return job


def queue(job_id: int) -> None:
    from django_q.tasks import async_task

    async_task(DRAFT_TASK, job_id, cluster=settings.Q_CLUSTER["name"], timeout=settings.VOYAGE_DRAFT_TIMEOUT,
               task_name=f"draft job {job_id}")


class _Lost(Exception):
    """The job is no longer ours (settled as failed meanwhile): nothing of ours may commit."""


def draft_task(job_id: int) -> dict:
    """The worker's task: claim the job, draft (or check), and end it done or failed."""
    settle_abandoned()
    me = worker_id()
    if not DraftJob.objects.filter(pk=job_id, state=DraftJob.QUEUED).update(
            state=DraftJob.DRAFTING, claimed_by=me, started_at=timezone.now(), step="starting"):
        return {"job": job_id, "outcome": "skipped"}
    job = DraftJob.objects.get(pk=job_id)
    mine = DraftJob.objects.filter(pk=job_id, state=DraftJob.DRAFTING, claimed_by=me)

    def step(what: str) -> None:
        mine.update(step=what[:120])

    try:
        report = _work(job, step)
        with transaction.atomic():
            if job.install:
                install_draft(report)
            if not mine.update(state=DraftJob.DONE, step="", report=report.lines(), text=report.text or job.text,
                               summary=json.loads(report.json_line()), finished_at=timezone.now(),
                               installed_slug=report.slug if report.installed else ""):
                raise _Lost
    except _Lost:
        log.warning("draft job %s was settled while %s worked on it; its result is dropped", job_id, me)
        return {"job": job_id, "outcome": "lost"}
    except (Exception, TimeoutException) as exc:
        mine.update(state=DraftJob.FAILED, step="", error=f"{type(exc).__name__}: {exc}"[:4000],
                    finished_at=timezone.now())
        log.exception("draft job %s failed", job_id)
        if isinstance(exc, TimeoutException):
            raise
        return {"job": job_id, "outcome": "failed", "error": str(exc)}
    return {"job": job_id, "outcome": "done", "installed": report.installed}


def _work(job: DraftJob, step):
    ask = DraftAsk(job.paragraph, people=job.people, rooms=job.rooms, repair_rounds=job.repair_rounds)
    if job.kind == DraftJob.CHECK:
        return recheck(job.text, ask, step=step)
    author = author_for(job.profile)
    return draft_world(ask, author.gateway(), drafted_by=author.name, budget=job.budget, step=step)


def settle_abandoned() -> list[int]:
    """Mark failed every job still `drafting` whose worker is gone (a process of this host that no
    longer runs) or that has run past its timeout (a worker elsewhere that vanished)."""
    host = socket.gethostname()
    too_old = timezone.now() - timedelta(seconds=settings.VOYAGE_DRAFT_TIMEOUT + 60)
    settled = []
    for pk, claimed_by, started_at in DraftJob.objects.filter(state=DraftJob.DRAFTING).values_list(
            "pk", "claimed_by", "started_at"):
        if not (claimant_gone(claimed_by, host) or (started_at is not None and started_at < too_old)):
            continue
        if DraftJob.objects.filter(pk=pk, state=DraftJob.DRAFTING, claimed_by=claimed_by).update(
                state=DraftJob.FAILED, step="", finished_at=timezone.now(),
                error=LOST.format(timeout=settings.VOYAGE_DRAFT_TIMEOUT)):
            log.warning("draft job %s: worker %s vanished; marked failed", pk, claimed_by)
            settled.append(pk)
    return settled
