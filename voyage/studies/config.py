"""Making a study: check the whole grid first (every cell's run configuration), then create the
study and all its runs in one transaction, so bad input leaves nothing half-written.

The runs wait PAUSED (`pause_reason` says so) until the study starts them: not QUEUED, which the
worker's rescue would pick up on its own, all at once, with no regard for the study's budget.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from voyage.engine.runner import create_run
from voyage.models import ModelProfile, Run
from voyage.studies.grid import PROFILE, SEED, Cell, GridError, cell_label, expand, with_seed
from voyage.studies.models import Study, StudyRun
from world.models import Scenario

OFFLINE = "offline"  # the profile axis value for the offline scripted policy (when no profile has that name)
WAITING = "waiting for its turn in study {name!r}"
# Run fields that are not the simulation's parameters, and JSON fields that cannot be written as V1,V2.
NOT_AXES = {"id", "uuid", "name", "scenario", "profile", "replay_of", "target_ticks", "tick", "state", "error",
            "pause_reason", "claimed_by", "heartbeat_at", "created_at", "budget_tokens", "budget_cost",
            "reflection_ticks"}


class StudyError(ValueError):
    """Bad study input; the message names what is wrong."""


@dataclass
class StudyPlan:
    name: str
    scenario: str
    target_ticks: int
    axes: dict[str, list[str]]
    base: dict = field(default_factory=dict)  # run fields shared by every run: schedule, seed, parameters
    budget_cost: str | Decimal | None = None
    parallel: int | None = None  # default: every run at once, or one at a time under a budget


def parameter_fields() -> dict:
    return {f.name: f for f in Run._meta.concrete_fields if f.name not in NOT_AXES}


def create_study(plan: StudyPlan) -> Study:
    """Validate the plan and make the study with one waiting run per cell. Raises StudyError."""
    name = plan.name.strip()
    if not name:
        raise StudyError("a study needs a name")
    if Study.objects.filter(name=name).exists():
        raise StudyError(f"there is already a study named {name!r}")
    scenario = _scenario(plan.scenario)
    if plan.target_ticks is None or plan.target_ticks < 1:
        raise StudyError("a study's runs need at least 1 tick (give --days or --ticks)")
    budget = _budget(plan.budget_cost)
    base = _base(plan.base)
    try:
        axes = with_seed(plan.axes, int(base.get(SEED, Run._meta.get_field(SEED).default)))
        cells = expand(axes)
    except GridError as exc:
        raise StudyError(str(exc)) from None
    configs = [_run_fields(scenario, base, cell, plan.target_ticks) for cell in cells]
    parallel = plan.parallel if plan.parallel is not None else (1 if budget is not None else len(cells))
    if parallel < 1:
        raise StudyError("--parallel must be at least 1")
    try:
        with transaction.atomic():
            study = Study.objects.create(name=name, scenario=scenario, target_ticks=plan.target_ticks,
                                         base={k: v for k, v in plan.base.items()}, axes=axes,
                                         budget_cost=budget, parallel=parallel)
            for position, (cell, fields) in enumerate(zip(cells, configs)):
                run = create_run(scenario, name=f"{name} #{position + 1}: {cell_label(cell.values)}, "
                                               f"seed={cell.seed}", **fields)
                Run.objects.filter(pk=run.pk).update(state=Run.PAUSED, pause_reason=WAITING.format(name=name))
                StudyRun.objects.create(study=study, run=run, position=position, cell=cell.as_dict())
    except IntegrityError:
        raise StudyError(f"there is already a study named {name!r}") from None
    return study


def _scenario(slug: str) -> Scenario:
    try:
        return Scenario.objects.get(slug=slug)
    except Scenario.DoesNotExist:
        known = ", ".join(Scenario.objects.values_list("slug", flat=True)) or "none"
        raise StudyError(f"there is no scenario {slug!r} (installed: {known})") from None


def _budget(raw) -> Decimal | None:
    if raw is None or raw == "":
        return None
    try:
        cost = Decimal(str(raw))
    except InvalidOperation:
        raise StudyError(f"--budget-cost {raw!r} is not a number") from None
    if not cost.is_finite() or cost <= 0:
        raise StudyError("--budget-cost must be more than 0")
    return cost


def _base(base: dict) -> dict:
    known = parameter_fields()
    unknown = sorted(set(base) - set(known) - {PROFILE})
    if unknown:
        raise StudyError(f"unknown run parameter(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return {k: str(v) for k, v in base.items()}


def _profile(value: str) -> ModelProfile | None:
    profile = ModelProfile.objects.filter(name=value).first()
    if profile is None:
        if value == OFFLINE:
            return None
        known = ", ".join([OFFLINE, *ModelProfile.objects.values_list("name", flat=True)])
        raise StudyError(f"profile: there is no model profile {value!r} (known: {known})")
    if profile.kind == ModelProfile.OPENAI and profile.api_key_env and not os.environ.get(profile.api_key_env):
        raise StudyError(f"profile {value!r} reads its API key from ${profile.api_key_env}, which is not set")
    return profile


def _run_fields(scenario: Scenario, base: dict, cell: Cell, target_ticks: int) -> dict:
    """The create_run keyword arguments for one cell, each value checked by the Run's own field."""
    known = parameter_fields()
    raw = {**base, **cell.as_dict()}
    unknown = sorted(set(raw) - set(known) - {PROFILE})
    if unknown:
        raise StudyError(f"cannot vary {', '.join(unknown)}: not a run parameter; "
                         f"vary profile or one of {', '.join(sorted(known))}")
    fields = {"target_ticks": target_ticks}
    for name, value in raw.items():
        if name == PROFILE:
            fields["profile"] = _profile(value)
            continue
        try:
            fields[name] = known[name].to_python(value)
        except ValidationError as exc:
            raise StudyError(f"{name}={value!r}: {' '.join(exc.messages)}") from None
    probe = Run(scenario=scenario, **fields)
    try:
        probe.clean_fields(exclude=["scenario", "profile", "replay_of"])
    except ValidationError as exc:
        problems = "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
        raise StudyError(f"run {cell_label(cell.values)}, seed={cell.seed}: {problems}") from None
    return fields
