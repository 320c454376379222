"""The one writer of a run's state: every change of `Run.state` is one of the named transitions
below, a conditional UPDATE from the states it may leave (so a racing worker or a second click
cannot slip in between a read and a write).

A transition from a state it may not leave is refused with `ImpossibleTransition`, saying what the
run is and what it could be; one that also names a condition (`where`: a worker's claim, a fork's
replay) and finds it false returns False instead: another process got there first, which is
normal. `tests/runs/test_run_transitions.py` fails if anything else writes a run's state.

It sits beside `voyage/models.py` (the run's tables layer), so that the engine (a run pausing on
its budget), the runs (control, the worker's chunks, forks) and studies all use it."""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q
from django.utils import timezone

from voyage.models import Run

EVERY_STATE = (Run.QUEUED, Run.RUNNING, Run.PAUSED, Run.FINISHED, Run.FAILED)
ACTIVE = (Run.QUEUED, Run.RUNNING)


class ImpossibleTransition(Exception):
    """The run is in a state this transition may not leave; the message says which and why."""


@dataclass(frozen=True)
class Transition:
    verb: str  # what the message says the run cannot be: "queued", "paused", ...
    to: str
    from_states: tuple[str, ...]


QUEUE = Transition("started", Run.QUEUED, (Run.QUEUED, Run.PAUSED, Run.FAILED, Run.FINISHED))
RESUME = Transition("resumed", Run.QUEUED, (Run.PAUSED, Run.FAILED))
CLAIM = Transition("claimed by a worker", Run.RUNNING, ACTIVE)
START = Transition("run in the foreground", Run.RUNNING, EVERY_STATE)  # what `run_voyage --run N` does to any run
PAUSE = Transition("paused", Run.PAUSED, ACTIVE)
# a run out of budget (the engine), or a foreground run interrupted: a paused run may pause again
PAUSE_ITSELF = Transition("paused", Run.PAUSED, (*ACTIVE, Run.PAUSED))
WAIT = Transition("set waiting for its turn", Run.PAUSED, (Run.QUEUED,))  # a study's run, just configured
# a fork replayed here (paused: a replayed call its model would not give, with why)
GO_LIVE = Transition("put live after its replay", Run.PAUSED, (Run.RUNNING, Run.PAUSED))
FORK_REPLAYED_WHOLE = Transition("finished by its replay", Run.FINISHED, (Run.RUNNING, Run.PAUSED))
# a study's arm, whose replay a worker (or the foreground) finished at the fork tick
GO_LIVE_AFTER_REPLAY = Transition("put live after its replay", Run.PAUSED, (Run.FINISHED,))
FINISH = Transition("finished", Run.FINISHED, (Run.QUEUED, Run.RUNNING, Run.PAUSED, Run.FAILED))
REACH_TARGET = Transition("finished by its worker", Run.FINISHED, ACTIVE)
FAIL = Transition("failed", Run.FAILED, EVERY_STATE)  # whatever else happened meanwhile, the error is said


def move(run: Run | int, transition: Transition, where: dict | Q | None = None, **fields) -> bool:
    """Make the transition, with `fields` written alongside; a Run passed in is updated too. Refused
    from a state it may not leave; False if only `where` did not hold (another process got there)."""
    if attempt(run, transition, where, **fields):
        return True
    state = Run.objects.filter(pk=_id(run)).values_list("state", flat=True).first()
    if state is None:
        raise ImpossibleTransition(f"there is no run {_id(run)}")
    if state not in transition.from_states:
        raise ImpossibleTransition(f"run {_id(run)} is {state}: only a run that is "
                                   f"{' or '.join(transition.from_states)} can be {transition.verb}")
    return False


def attempt(run: Run | int, transition: Transition, where: dict | Q | None = None, **fields) -> bool:
    """The transition if the run may make it now, else nothing: a worker's way, where a run paused,
    stopped or taken over meanwhile is normal."""
    condition = where if isinstance(where, Q) else Q(**(where or {}))
    moved = Run.objects.filter(condition, pk=_id(run), state__in=transition.from_states).update(
        state=transition.to, **fields)
    if moved and isinstance(run, Run):
        run.state = transition.to
        for name, value in fields.items():
            setattr(run, name, value)
    return bool(moved)


def _id(run: Run | int) -> int:
    return run if isinstance(run, int) else run.pk


# --- the transitions by name ---------------------------------------------------------------------
def queue(run: Run | int, transition: Transition = QUEUE, where: dict | Q | None = None) -> bool:
    """On the worker's queue (voyage.runs.control queues its chain once this has committed)."""
    return move(run, transition, where, error="", heartbeat_at=timezone.now())


def claim(run_id: int, me: str, where: Q) -> bool:
    """A worker's chunk takes the run (`where`: at its tick, and not held by a live worker)."""
    return attempt(run_id, CLAIM, where, claimed_by=me, heartbeat_at=timezone.now())


def start_in_foreground(run: Run) -> None:
    move(run, START, error="", pause_reason="")


def pause(run: Run | int) -> bool:
    """Paused by its user: what it said of itself before (`pause_reason`) stays."""
    return move(run, PAUSE)


def pause_itself(run: Run, reason: str) -> bool:
    """Paused for a reason of its own (its budget, its study's fork not ready), saying why."""
    return move(run, PAUSE_ITSELF, pause_reason=reason[:2000])


def interrupt(run: Run, error: str) -> bool:
    """A foreground run stopped by its user (Ctrl-C): paused, saying what stopped it."""
    return move(run, PAUSE_ITSELF, error=error)


def wait_for_turn(run: Run, reason: str) -> bool:
    return move(run, WAIT, pause_reason=reason)


def finish(run: Run | int, **fields) -> bool:
    return move(run, FINISH, **fields)


def reach_target(run_id: int, me: str, tick: int) -> bool:
    """A worker's chunk has brought the run to its target: finished, and let go."""
    return attempt(run_id, REACH_TARGET, dict(claimed_by=me, target_ticks__lte=tick), claimed_by="")


def fail(run: Run | int, error: str, where: dict | Q | None = None, **fields) -> bool:
    return move(run, FAIL, where, error=error, **fields)


def go_live(run: Run, target_ticks: int, **fields) -> bool:
    """A fork's replayed ticks are in: paused with its own settings from here on, to go on live —
    or finished, if the replay was its whole length."""
    transition = GO_LIVE if run.tick < target_ticks else FORK_REPLAYED_WHOLE
    return move(run, transition, replay_of=None, target_ticks=target_ticks, **fields)
