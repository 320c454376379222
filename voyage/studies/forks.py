"""A study's intervention arms as forks of one base run (voyage.studies.arms says how they are planned).

An arm is made with the study, as a run of its cell that waits paused, `forked_from` its base run at
the study's `fork_tick`, its intervention scheduled at its tick. Once the base has reached the fork
tick, the arm is forked in place, in two steps that the worker (voyage.studies.scheduler) and the
foreground (`study run`) take alike:

1. `begin_replay`: the arm becomes a replay of its base up to the fork tick (`replay_of`, target the
   fork tick) and is advanced like any run, in the worker's durable chunks: the replay gateway hands
   it the base's recorded answers, so its ticks come out exactly as the base's did, byte for byte
   (voyage.runs.fork does the same for a fork made by hand);
2. `go_live`: at the fork tick (where the arm's intervention, scheduled there, has just been applied)
   it drops the replay and gets its full length back, to go on live on its own model.
"""
from __future__ import annotations

from django.db import transaction

from memories.jobs import owed_before
from voyage import run_transitions as transitions
from voyage.instruments.interventions import copy_interventions
from voyage.models import Run


def is_arm(run: Run, bases: set[int]) -> bool:
    return run.forked_from_id in bases and run.fork_tick is not None


def forked(run: Run) -> bool:
    """The arm has its base's ticks and goes on live (or has gone on)."""
    return run.replay_of_id is None and run.tick >= run.fork_tick


def replayed(run: Run) -> bool:
    """The arm has replayed its base to the fork tick and waits to go live."""
    return run.replay_of_id is not None and run.tick >= run.fork_tick and run.state == Run.FINISHED


def not_ready(base: Run, tick: int) -> str:
    """Why the arms of `base` cannot be forked yet, or ""."""
    if base.tick >= tick:
        if owed := owed_before(base.pk, tick):  # its arms replay its memory calls: they must all be there
            return f"waiting for its base run {base.pk}'s memory jobs before tick {tick} ({len(owed)} still running)"
        return ""
    if base.state == Run.FAILED:
        return f"waiting for its base run {base.pk}, which failed at tick {base.tick}: resume it"
    if base.state == Run.FINISHED:
        return f"its base run {base.pk} was stopped at tick {base.tick}, before the fork tick {tick}: give it more ticks"
    return f"waiting for its base run {base.pk} to reach tick {tick} (at {base.tick})"


def begin_replay(arm: Run, base: Run) -> None:
    """Step 1: the arm replays its base's first fork_tick ticks, with the base's interventions before
    that tick (as a fork copies them)."""
    with transaction.atomic():
        Run.objects.filter(pk=arm.pk).update(replay_of=base, target_ticks=arm.fork_tick, pause_reason="")
        copy_interventions(base, arm, before=arm.fork_tick)
    arm.refresh_from_db()


def go_live(arm: Run, target_ticks: int) -> bool:
    """Step 2: at the fork tick, the arm's own length and model (its settings are its cell's, which are
    the base's). Conditional, so a duplicate call (the signal and the per-minute catch-up) is harmless."""
    moved = transitions.attempt(arm.pk, transitions.GO_LIVE_AFTER_REPLAY, dict(replay_of__isnull=False,
                                tick__gte=arm.fork_tick), replay_of=None, target_ticks=target_ticks, pause_reason="")
    arm.refresh_from_db()
    return bool(moved)
