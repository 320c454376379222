"""Fork a run at a tick: "what if, from tick N".

A fork is a new run that first replays the source's first N ticks from its recorded answers (the
replay gateway, with the source's seed and parameters, so those ticks come out exactly as they
did), then goes live with its own settings: another seed, model profile, parameters or length.
It records where it came from (`forked_from`, `fork_tick`).

The replayed part runs in the caller's process when the fork is made (it needs no model, so it is
fast); after that the fork is an ordinary paused run, continued by `run_voyage --run` or started
on the worker.
"""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from memories.attempts import catch_up_run
from voyage import run_transitions as transitions
from voyage.engine.runner import advance, create_run
from voyage.models import ModelProfile, Run
from voyage.runs.config import PARAMETERS, check_config, run_config


class ForkError(ValueError):
    """The fork cannot be made as asked; the message says why (field by field)."""


def message(exc: ValidationError) -> str:
    return "; ".join(f"{field}: {' '.join(msgs)}" for field, msgs in exc.message_dict.items())


def fork(source: Run, at_tick: int, *, seed: int | None = None, profile: ModelProfile | str | None = None,
         target_ticks: int | None = None, params: dict | None = None, name: str = "",
         memory_inline: bool = False) -> Run:
    """The fork, replayed to `at_tick` and paused there (finished if its length is `at_tick`).
    Unset settings are the source's; the live ones are checked as the admin checks a run's.
    `memory_inline`: do the replayed ticks' memory jobs here, answered from the source's recorded
    memory calls (as `run_voyage` does them), rather than queue them for the memory cluster."""
    if not 0 < at_tick <= source.tick:
        raise ForkError(f"run {source.pk} has {source.tick} committed ticks: fork it at a tick from 1 to {source.tick}")
    config = run_config(source)
    live = {**{k: config[k] for k in ("scenario", "cast", "schedule", *PARAMETERS)},
            "seed": source.seed if seed is None else seed,
            "profile": source.profile if profile is None else profile,
            "ticks": source.target_ticks if target_ticks is None else target_ticks,
            **(params or {})}
    try:
        check_config(**live)
    except (ValidationError, TypeError) as exc:
        raise ForkError(message(exc) if isinstance(exc, ValidationError) else str(exc)) from None
    if live["ticks"] < at_tick:
        raise ForkError(f"ticks: the fork's length ({live['ticks']} ticks) is shorter than its fork tick {at_tick}")

    # The source's memory jobs of the ticks the fork replays, done (or waited for) first: the fork's
    # own jobs are answered from the source's recorded memory calls, which must all be there.
    catch_up_run(source.pk, before_tick=at_tick)
    run = replaying(source, at_tick, forked_from=source, fork_tick=at_tick,
                    name=name or f"fork of run {source.pk} at tick {at_tick}")
    transitions.start_in_foreground(run)
    try:
        advance(run, at_tick, memory_inline=memory_inline)
    except BaseException as exc:
        transitions.fail(run, f"replaying the fork: {type(exc).__name__}: {exc}")
        raise
    profile_row = live["profile"]
    if isinstance(profile_row, str):  # a name check_config has found ("" is the offline policy)
        profile_row = ModelProfile.objects.get(name=profile_row) if profile_row else None
    return go_live(run, seed=live["seed"], profile=profile_row, target_ticks=live["ticks"],
                   **{k: live[k] for k in PARAMETERS})


def replaying(source: Run, ticks: int, **fields) -> Run:
    """A new run that repeats `source`'s first `ticks` ticks from its recorded answers: its cast, seed,
    schedule and parameters (no budget: recorded tokens are not spent again)."""
    personas = list(source.scenario.personas.filter(key__in=run_config(source)["cast"]))
    replayed = {k: getattr(source, k) for k in ("seed", "schedule", *PARAMETERS)}
    replayed.update(budget_tokens=None, budget_cost=None)
    return create_run(source.scenario, personas=personas, target_ticks=ticks, replay_of=source, **replayed, **fields)


def go_live(run: Run, **changes) -> Run:
    """The replayed ticks are in: from here on the fork's own settings and a live model."""
    with transaction.atomic():
        transitions.go_live(run, **changes)
    run.refresh_from_db()
    return run
