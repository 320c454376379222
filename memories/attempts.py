"""Doing a recorded memory job exactly once, whoever delivers it and however often.

An attempt claims the job's pending row (a conditional UPDATE: only one process wins), makes the
job's model calls — each saved as it is made, marked abandoned — and then, in one transaction,
writes the job's results, clears the mark on its calls and deletes the pending row, provided the
claim is still its own. So:
- a second delivery of a done job finds no row and does nothing;
- an attempt killed part-way leaves no results, its calls kept but abandoned (they cost money;
  nothing was built on them), and the row claimed by a dead process: the memory cluster's rescue
  (at its start and every minute) hands it out again;
- one agent's jobs apply in their ticks' order: an attempt first catches up on the earlier pending
  jobs its own reads depend on (the agent's compactions; the run's dreams), waiting for one another
  process is doing.
What a job does is found by its record's kind (memories.job_records.DOERS, which the job modules
fill): this module imports none of them.
"""
from __future__ import annotations

import logging
import socket
import time
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from memories.job_queue import queue
from memories.job_records import ROW_FIELDS, Compaction, doer, from_row, owed_before
from memories.models import PendingMemoryJob
from voyage.models import LLMCall
from voyage.processes import claimant_gone, worker_id

log = logging.getLogger("voyage.memory")

LEASE_S = 120  # renewed after each model call: a claim this old belongs to a process that is lost
WAIT_S = 0.2  # how often an attempt looks whether an earlier job another process does is done
REQUEUE_AFTER_S = 60  # a job handed out this long ago and not begun: its task may have died in flight
RESCUE_SCHEDULE = "voyage: rescue memory jobs whose worker vanished"


class Lost(Exception):
    """Another attempt took the job over (ours looked dead): our results are not written."""


class Attempt:
    """One process doing one job (`row_id`), or a hard compaction inside a tick (`row_id` None)."""

    def __init__(self, row_id: int | None, me: str | None = None):
        self.row_id = row_id
        self.me = me or worker_id()
        self.calls: list[int] = []

    def record(self, call) -> None:
        """Save a model call now: it is paid for whatever becomes of this attempt."""
        call.abandoned = True
        call.save()
        self.calls.append(call.pk)
        self.renew()

    def renew(self) -> None:
        if self.row_id is not None:
            PendingMemoryJob.objects.filter(pk=self.row_id, claimed_by=self.me).update(lease_until=_lease())

    def commit(self, write=None) -> bool:
        """Write the results, keep the calls, and let the job go, together; False if it was taken over."""
        try:
            with transaction.atomic():
                if write is not None:
                    write()
                if self.calls:
                    LLMCall.objects.filter(pk__in=self.calls).update(abandoned=False)
                if self.row_id is not None and not \
                        PendingMemoryJob.objects.filter(pk=self.row_id, claimed_by=self.me).delete()[0]:
                    raise Lost
        except (Lost, IntegrityError):  # another attempt wrote these results first
            log.warning("memory job %s was taken over; this attempt's %d calls stay abandoned", self.row_id,
                        len(self.calls))
            return False
        return True


def _lease():
    return timezone.now() + timedelta(seconds=LEASE_S)


# --- claiming ---------------------------------------------------------------------------------
def _takeable(claimed_by: str, lease_until, me: str) -> bool:
    if claimed_by in ("", me):
        return True
    if lease_until is not None and lease_until < timezone.now():
        return True
    return claimant_gone(claimed_by, socket.gethostname())


def take(row_id: int, me: str) -> bool | None:
    """Claim the row: True if ours now, False if a live process holds it, None if it is done."""
    row = PendingMemoryJob.objects.filter(pk=row_id).values_list("claimed_by", "lease_until").first()
    if row is None:
        return None
    claimed_by, lease_until = row
    if not _takeable(claimed_by, lease_until, me):
        return False
    return PendingMemoryJob.objects.filter(pk=row_id, claimed_by=claimed_by).update(
        claimed_by=me, lease_until=_lease()) == 1


def do_or_wait(row_id: int, gateway=None) -> int | None:
    """Do the job of this row unless it is done; wait while another live process does it."""
    me = worker_id()
    while (taken := take(row_id, me)) is not True:
        if taken is None:
            return None
        time.sleep(WAIT_S)
    row = PendingMemoryJob.objects.filter(pk=row_id, claimed_by=me).values_list(*ROW_FIELDS).first()
    if row is None:
        return None
    job = from_row(*row)
    if job is None:  # a row older than the job field: nothing to do but let it go
        Attempt(row_id, me).commit()
        return None
    return doer(job)(job, gateway=gateway, attempt=Attempt(row_id, me))


def earlier(row: PendingMemoryJob) -> list[int]:
    """The pending jobs this one's reads depend on, oldest first: the same agent's compactions
    (they decide which rows are still uncovered), the run's earlier dreams (the last dream decides
    where the next begins)."""
    rows = PendingMemoryJob.objects.filter(run_id=row.run_id, job=row.job, id__lt=row.id)
    if row.job == Compaction.KIND:
        rows = rows.filter(agent_id=row.agent_id)
    return list(rows.order_by("id").values_list("id", flat=True))


def perform_on(name: str, gateway=None) -> int | None:
    row = PendingMemoryJob.objects.filter(name=name).first()
    if row is None:
        return None  # done already: a second delivery
    for row_id in earlier(row):
        do_or_wait(row_id, gateway)
    return do_or_wait(row.id, gateway)


def catch_up_run(run_id: int, before_tick: int | None = None, gateway=None) -> int:
    """Do (or wait for) the run's jobs asked for before `before_tick` (all, without one), here (on
    `gateway`, or the run's own): what a fixture export or a fork does first, so that it carries the
    memory a finished run owes, and what the engine does before a prompt that shows their rows."""
    names = owed_before(run_id, before_tick)
    for name in names:
        perform_on(name, gateway)
    return len(names)


def catch_up_compactions(run_id: int, agent_id: int, gateway=None) -> None:
    """Before a hard compaction inside a tick: the agent's recorded compactions, in order."""
    for row_id in (PendingMemoryJob.objects.filter(run_id=run_id, job=Compaction.KIND, agent_id=agent_id)
                   .order_by("id").values_list("id", flat=True)):
        do_or_wait(row_id, gateway)


# --- rescue -------------------------------------------------------------------------------------
def rescue(at_start: bool = False) -> list[str]:
    """Hand out again the jobs whose attempt died (claimant gone, lease run out) and those handed
    out long ago and never begun (a task lost in flight: the Redis broker loses what a killed
    cluster had fetched). A memory cluster starting hands out every job not held by a live process
    (a duplicate is a no-op). Each row is handed out by one rescuer (a conditional UPDATE)."""
    now = timezone.now()
    idle_since = now - timedelta(seconds=2 if at_start else REQUEUE_AFTER_S)
    host = socket.gethostname()
    again = []
    for pk, name, claimed_by, lease_until, queued_at, *fields in PendingMemoryJob.objects.exclude(
            job="").filter(Q(claimed_by__gt="") | Q(queued_at__lt=idle_since)).values_list(
            "pk", "name", "claimed_by", "lease_until", "queued_at", *ROW_FIELDS):
        if claimed_by:
            dead = (lease_until is not None and lease_until < now) or claimant_gone(claimed_by, host)
            if not dead or not PendingMemoryJob.objects.filter(pk=pk, claimed_by=claimed_by).update(
                    claimed_by="", lease_until=None, queued_at=now):
                continue
        elif not PendingMemoryJob.objects.filter(pk=pk, claimed_by="", queued_at=queued_at).update(queued_at=now):
            continue
        queue(from_row(*fields), name)
        again.append(name)
    if again:
        log.warning("memory jobs handed out again: %s", ", ".join(again[:20]))
    return again


def rescue_task() -> list[str]:
    return rescue()
