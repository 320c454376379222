"""Start, pause, resume and stop runs: the one set of functions behind the management commands,
the admin and the API. Each owns its transaction, changes the run's state by a named transition
(voyage.run_transitions: a conditional UPDATE, so a racing worker or second click cannot slip in
between a read and a write), and queues the run's chain only once that transaction has committed."""
from __future__ import annotations

from functools import partial

from django.db import transaction
from django.db.models import F

from voyage import run_transitions as transitions
from voyage.models import Run
from voyage.run_transitions import ImpossibleTransition, Transition
from voyage.runs import tasks


class ControlError(Exception):
    """The run is not in a state that allows this; the message says why and what to do."""


def _get(run_id: int) -> Run:
    try:
        return Run.objects.get(pk=run_id)
    except Run.DoesNotExist:
        raise ControlError(f"there is no run {run_id}") from None


def _go(run_id: int, transition: Transition) -> Run:
    with transaction.atomic():
        run = _get(run_id)
        if run.tick >= run.target_ticks:
            raise ControlError(f"run {run_id} has reached its target of {run.target_ticks} ticks; give it more "
                               f"with `start_voyage --run {run_id} --ticks N`")
        try:
            moved = transitions.queue(run_id, transition, where={"tick__lt": F("target_ticks")})
        except ImpossibleTransition as exc:
            raise ControlError(str(exc)) from None
        if not moved:
            raise ControlError(f"run {run_id} has reached its target of {run.target_ticks} ticks")
        tasks.ensure_rescue_schedule()
        run.refresh_from_db()
        transaction.on_commit(partial(tasks.queue_chunk, run.pk, run.tick))
    return run


def start(run_id: int) -> Run:
    """Queue the run on the worker. A queued run is queued again (harmless: one chunk wins)."""
    return _go(run_id, transitions.QUEUE)


def resume(run_id: int) -> Run:
    """Go on after a pause, or after a failure once its cause is fixed."""
    return _go(run_id, transitions.RESUME)


def pause(run_id: int) -> Run:
    """The worker finishes the tick it is computing, then lets the run go."""
    with transaction.atomic():
        try:
            transitions.pause(_get(run_id).pk)
        except ImpossibleTransition:
            raise ControlError(f"run {run_id} is {_get(run_id).state}: only a queued or running run can be paused") \
                from None
        return _get(run_id)


def stop(run_id: int) -> Run:
    """End the run where it is: finished, its target cut down to the ticks it has."""
    with transaction.atomic():
        try:
            transitions.finish(_get(run_id).pk, target_ticks=F("tick"))
        except ImpossibleTransition:
            raise ControlError(f"run {run_id} is already {_get(run_id).state}") from None
        return _get(run_id)
