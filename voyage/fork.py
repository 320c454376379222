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

from voyage.engine.runner import advance, create_run
from voyage.models import ModelProfile, Run

# What a fork may change once it goes live (the rest of a run's settings are the source's).
PARAMETERS = ("hot_memory_limit", "compaction_memory_count", "compaction_soft_chars", "compaction_hard_chars",
              "reflection_ticks", "reflection_cooldown", "importance_threshold", "attrition_threshold",
              "fatigue_warning", "fatigue_limit", "malformed_rate", "budget_tokens", "budget_cost")


class ForkError(ValueError):
    """The fork cannot be made as asked; the message says why."""


def check_parameters(params: dict) -> dict:
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ForkError(f"unknown parameter(s) {', '.join(unknown)}; a fork can change {', '.join(PARAMETERS)}")
    out = {}
    for name, value in params.items():
        field = Run._meta.get_field(name)
        try:
            out[name] = field.clean(value, None) if value is not None else None
        except ValidationError as exc:
            raise ForkError(f"{name}: {'; '.join(exc.messages)}") from None
    return out


def fork(source: Run, at_tick: int, *, seed: int | None = None, profile: ModelProfile | None = None,
         target_ticks: int | None = None, params: dict | None = None, name: str = "") -> Run:
    if not 0 < at_tick <= source.tick:
        raise ForkError(f"run {source.pk} has {source.tick} committed ticks: fork it at a tick from 1 to {source.tick}")
    target = source.target_ticks if target_ticks is None else target_ticks
    if target < at_tick:
        raise ForkError(f"the fork's length ({target} ticks) is shorter than its fork tick {at_tick}")
    live = check_parameters(params or {})
    from voyage.management.model_options import replay_fields

    fields = {**replay_fields(source), "name": name or f"fork of run {source.pk} at tick {at_tick}"}
    run = create_run(target_ticks=at_tick, forked_from=source, fork_tick=at_tick, **fields)
    Run.objects.filter(pk=run.pk).update(state=Run.RUNNING)
    try:
        advance(run, at_tick)
    except BaseException as exc:
        Run.objects.filter(pk=run.pk).update(state=Run.FAILED, error=f"replaying the fork: {type(exc).__name__}: {exc}")
        raise
    return go_live(run, seed=source.seed if seed is None else seed,
                   profile=source.profile if profile is None else profile, target_ticks=target, **live)


def go_live(run: Run, **changes) -> Run:
    """The replayed ticks are in: from here on the fork's own settings and a live model."""
    with transaction.atomic():
        Run.objects.filter(pk=run.pk).update(replay_of=None, state=Run.PAUSED if run.tick < changes["target_ticks"]
                                             else Run.FINISHED, **changes)
    run.refresh_from_db()
    return run
