"""Starting a study's runs on the worker, a bounded few at a time, checking its budget before each.

Nobody has to come back and push: after every task a worker process runs (django-q2's
post_execute_in_worker), a chunk that left its run settled (finished, failed, paused) starts the
study's next runs; a schedule every minute does the same for any study whose signal was lost (a
worker killed between its run's last tick and the signal).

Two workers settling two runs of one study at once must not start the same run twice, nor more than
`parallel` runs: the study row is locked (PostgreSQL) or the write transaction is IMMEDIATE (SQLite)
while one of them decides.
"""
from __future__ import annotations

import logging
from decimal import Decimal

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from voyage.models import LLMCall, Run
from voyage.runs import control
from voyage.runs.tasks import OLD_PATHS, RUN_CHUNK, ensure_minutely
from voyage.studies import forks
from voyage.studies.models import Study, StudyRun
from voyage.studies.study_surveys import take_due

log = logging.getLogger("voyage.studies")
ACTIVE = (Run.QUEUED, Run.RUNNING)
SETTLED = (Run.FINISHED, Run.FAILED)
SCHEDULE = "studies: start the next runs of running studies"
CHUNK_PATHS = (RUN_CHUNK, *(old for old, new in OLD_PATHS.items() if new == RUN_CHUNK))  # a chunk queued by either layout
NOT_STARTED = "not started: {why}"


def spent(study: Study) -> Decimal:
    total = LLMCall.objects.filter(run__study_member__study=study).aggregate(cost=Sum("cost"))["cost"]
    return Decimal(total or 0)


def budget_reached(study: Study) -> str:
    """Why the study may start no further run, or ""."""
    if study.budget_cost is None:
        return ""
    cost = spent(study)
    if cost >= study.budget_cost:
        return f"cost budget reached: {cost:.4f} of {study.budget_cost:.4f} spent"
    return ""


def stop_for_budget(study: Study, why: str, waiting: list[StudyRun]) -> None:
    reason = f"{why}; {len(waiting)} run(s) not started"
    Study.objects.filter(pk=study.pk).update(state=Study.STOPPED, stop_reason=reason)
    Run.objects.filter(pk__in=[m.run_id for m in waiting]).update(pause_reason=NOT_STARTED.format(why=why))
    study.state, study.stop_reason = Study.STOPPED, reason
    log.warning("study %s stopped: %s", study.pk, reason)


def start_next(study_id: int) -> list[int]:
    """Queue the study's next runs on the worker, as many as its free slots allow, unless its budget
    is spent (then it stops, saying why). An intervention arm starts only once its base run has
    reached the fork tick (voyage.studies.forks), replaying it first, then goes on live. Marks the
    study finished when every run has settled. Returns the ids of the runs it started."""
    started = []
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study_id)
        if study.state == Study.FINISHED:
            return []
        members = list(StudyRun.objects.filter(study=study).select_related("run").order_by("position"))
        bases = {m.run_id: m.run for m in members if m.is_base}
        live = _go_live(study, members, started)
        if study.state != Study.RUNNING:
            return started
        waiting = [m for m in members if m.started_at is None]
        if not waiting:
            _finish_if_settled(study, members, live)
            return started
        if why := budget_reached(study):
            stop_for_budget(study, why, waiting)
            return started
        in_flight = [m for m in members if m.started_at is not None and (m.run.state in ACTIVE or m in live)]
        for member in _ready(waiting, bases)[:max(0, study.parallel - len(in_flight))]:
            _begin(study, member, bases, started)
    return started


def _go_live(study: Study, members: list[StudyRun], started: list[int]) -> list[StudyRun]:
    """The arms replayed to their fork tick go on live, in the slot they already hold (a run already
    going finishes, budget or not). Returns those arms."""
    live = [m for m in members if m.started_at is not None and forks.replayed(m.run)]
    for member in live:
        if forks.go_live(member.run, study.target_ticks):
            _start(study, member, started)
    return live


def _finish_if_settled(study: Study, members: list[StudyRun], live: list[StudyRun]) -> None:
    """Nothing left to start: the study is finished once every run has settled (a run paused by hand
    keeps its study running)."""
    if not live and all(m.run.state in SETTLED for m in members):
        Study.objects.filter(pk=study.pk).update(state=Study.FINISHED)


def _ready(waiting: list[StudyRun], bases: dict[int, Run]) -> list[StudyRun]:
    """The waiting runs that may start now, in order: an arm waits for its base run to reach the fork
    tick, and its run says why it waits."""
    ready = []
    for member in waiting:
        if forks.is_arm(member.run, set(bases)):
            why = forks.not_ready(bases[member.run.forked_from_id], member.run.fork_tick)
            if why:
                if member.run.pause_reason != why:
                    Run.objects.filter(pk=member.run_id, state=Run.PAUSED).update(pause_reason=why)
                continue
        ready.append(member)
    return ready


def _begin(study: Study, member: StudyRun, bases: dict[int, Run], started: list[int]) -> None:
    """Take a slot for the run and start it; an arm first replays its base run to the fork tick."""
    StudyRun.objects.filter(pk=member.pk).update(started_at=timezone.now())
    Run.objects.filter(pk=member.run_id, state=Run.PAUSED).update(pause_reason="")  # no longer waiting
    if forks.is_arm(member.run, set(bases)) and member.run.state == Run.PAUSED:  # not one stopped by hand
        forks.begin_replay(member.run, bases[member.run.forked_from_id])
    _start(study, member, started)


def _start(study: Study, member: StudyRun, started: list[int]) -> None:
    try:
        control.start(member.run_id)  # queued once this transaction commits
    except control.ControlError as exc:  # e.g. stopped by hand before its turn: leave it be
        log.warning("study %s: run %s not started: %s", study.pk, member.run_id, exc)
        return
    started.append(member.run_id)


def start(study: Study) -> list[int]:
    """Start a study on the worker (and make sure the per-minute catch-up exists)."""
    ensure_schedule()
    return start_next(study.pk)


def pump() -> dict:
    """The per-minute schedule: every running study gets its next runs started (and its finished
    runs the surveys they lack)."""
    started = {}
    for study_id in Study.objects.filter(state=Study.RUNNING).values_list("pk", flat=True):
        started[study_id] = start_next(study_id)
        _survey(study_id)
    return started


def _survey(study_id: int) -> None:
    """The study's finished runs' surveys (outside the study's lock: they call the model)."""
    try:
        take_due(Study.objects.get(pk=study_id))
    except Exception:
        log.exception("study %s: taking its surveys failed", study_id)


def ensure_schedule() -> None:
    ensure_minutely(SCHEDULE, "voyage.studies.scheduler.pump")


def after_task(sender, func, task, **kwargs) -> None:
    """django-q2's post_execute_in_worker: a run chunk that did not chain on left its run settled or
    paused; if the run belongs to a study, start the study's next runs. Never raises: a failure here
    must not take the worker down (the per-minute schedule catches up)."""
    if task.get("func") not in CHUNK_PATHS or not task.get("success"):
        return
    result = task.get("result")
    if not isinstance(result, dict) or result.get("outcome") in ("chained", "skipped"):
        return
    try:
        study_id = StudyRun.objects.filter(run_id=result.get("run")).values_list("study_id", flat=True).first()
        if study_id is not None:
            start_next(study_id)
            _survey(study_id)
    except Exception:
        log.exception("study: starting the next runs after run %s failed", result.get("run"))
