"""Making a study: every cell's run goes through voyage.runs.config.configure_run (the one validating
entry point the admin and the API use too), all inside one transaction, so bad input anywhere in
the grid leaves nothing half-written.

The runs wait PAUSED (`pause_reason` says so) until the study starts them: not QUEUED, which the
worker's rescue would pick up on its own, all at once, with no regard for the study's budget.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from voyage import run_transitions as transitions
from voyage.gateway.routes import parse_routes
from voyage.instruments.interventions import InterventionError, intervene
from voyage.models import ModelProfile, Run
from voyage.runs.config import PARAMETERS, configure_run
from voyage.studies.arms import INTERVENTION, NO_INTERVENTION, ArmError, base_key, check_axis, fork_tick
from voyage.studies.grid import PROFILE, SEED, GridError, cell_label, expand, with_seed
from voyage.studies.models import Study, StudyRun
from voyage.studies.study_judging import StudyJudgeError, check_judging
from voyage.studies.study_surveys import StudySurveyError, check_surveys
from world.models import Scenario

ROUTES = "profile_routes"  # an axis of profiles by call group and agent, e.g. none,memory=strong
OFFLINE = "offline"  # the profile axis value for the offline scripted policy (when no profile has that name)
WAITING = "waiting for its turn in study {name!r}"
WAITING_FOR_BASE = "waiting for its base run {base} to reach tick {tick}"
# What may vary or be set for every run: the run's parameters, except those not written as one
# value (reflection_ticks is a list) and the per-run budgets (the study has its own).
SETTABLE = ("seed", "schedule", *(p for p in PARAMETERS if p not in ("reflection_ticks", "budget_tokens",
                                                                     "budget_cost")))


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
    # The "intervention" axis's values besides "none": name -> intervene()'s arguments (kind, tick, text,
    # room or agent...), checked by voyage.studies.arms and scheduled in each run of that arm.
    interventions: dict[str, dict] = field(default_factory=dict)
    # Questionnaires put to every run at a tick (voyage.studies.study_surveys.parse_survey's form).
    surveys: list[dict] = field(default_factory=list)
    # Rubrics judged on a day of every run (voyage.studies.study_judging.parse_judge's form).
    judging: list[dict] = field(default_factory=list)


def create_study(plan: StudyPlan) -> Study:
    """Validate the plan and make the study with one waiting run per cell (and, with an intervention
    axis, one base run per cell of the other axes, which its arms fork from). Raises StudyError.
    `study.warnings` lists what configure_run allowed but flagged (a key variable not set here)."""
    name = plan.name.strip()
    if not name:
        raise StudyError("a study needs a name")
    if Study.objects.filter(name=name).exists():
        raise StudyError(f"there is already a study named {name!r}")
    scenario = _scenario(plan.scenario)
    if plan.target_ticks is None or plan.target_ticks < 1:
        raise StudyError("a study's runs need at least 1 tick (give --days or --ticks)")
    budget = _budget(plan.budget_cost)
    base = {k.replace("-", "_"): str(v) for k, v in plan.base.items()}
    try:
        axes = with_seed(plan.axes, int(base.get(SEED, Run._meta.get_field(SEED).default)))
        cells = expand(axes)
    except (GridError, ValueError) as exc:
        raise StudyError(str(exc)) from None
    try:
        specs = check_axis(axes.get(INTERVENTION), plan.interventions, plan.target_ticks)
    except ArmError as exc:
        raise StudyError(str(exc)) from None
    if INTERVENTION in base:
        raise StudyError(f"{INTERVENTION}: vary it (intervention={NO_INTERVENTION},NAME), it is not set for every run")
    unknown = sorted(({*base, *axes} - {*SETTABLE, PROFILE, INTERVENTION}))
    if unknown:
        raise StudyError(f"{', '.join(unknown)}: not a run parameter; vary or set profile or one of "
                         f"{', '.join(SETTABLE)}")
    try:
        surveys = check_surveys(plan.surveys, plan.target_ticks)
    except StudySurveyError as exc:
        raise StudyError(str(exc)) from None
    try:
        judging = check_judging(plan.judging, plan.target_ticks)
    except StudyJudgeError as exc:
        raise StudyError(str(exc)) from None
    split = fork_tick(specs) if specs else None
    runs = len(cells) + (len({base_key(c.as_dict()) for c in cells}) if specs else 0)
    parallel = plan.parallel if plan.parallel is not None else (1 if budget is not None else runs)
    if parallel < 1:
        raise StudyError("--parallel must be at least 1")
    made = Making(name=name, scenario=scenario, base=base, specs=specs, fork_tick=split)
    try:
        with transaction.atomic():
            study = Study.objects.create(name=name, scenario=scenario, target_ticks=plan.target_ticks, base=base,
                                         axes=axes, budget_cost=budget, parallel=parallel, interventions=specs,
                                         fork_tick=split, surveys=surveys, judging=judging)
            made.study = study
            for cell in cells:
                values = cell.as_dict()
                if specs:
                    made.arm(values, plan.target_ticks)
                else:
                    made.member(made.run(values, plan.target_ticks), values)
    except IntegrityError:
        raise StudyError(f"there is already a study named {name!r}") from None
    study.warnings = made.warnings
    return study


@dataclass
class Making:
    """The study's runs as create_study makes them, in grid order; with an intervention axis, each
    cell's arm after the base run it forks from (made before its first arm)."""

    name: str
    scenario: Scenario
    base: dict
    specs: dict[str, dict]
    fork_tick: int | None
    study: Study | None = None
    warnings: list[str] = field(default_factory=list)
    bases: dict = field(default_factory=dict)  # base_key -> the base run
    position: int = 0

    def run(self, cell: dict[str, str], ticks: int, label: str = "") -> Run:
        """A run of the cell, configured as the admin configures one, waiting paused for its turn."""
        label = label or f"{cell_label(cell)}, seed={cell[SEED]}"
        values = {**self.base, **cell}
        values.pop(INTERVENTION, None)
        try:
            run = configure_run(self.scenario, ticks=ticks, **_run_fields(values),
                                name=f"{self.name} #{self.position + 1}: {label}"[:Run._meta.get_field("name").max_length])
        except ValidationError as exc:
            problems = "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
            raise StudyError(f"run {label}: {problems}") from None
        self.warnings += [w for w in run.warnings if w not in self.warnings]
        transitions.wait_for_turn(run, WAITING.format(name=self.name))
        return run

    def member(self, run: Run, cell: dict[str, str], is_base: bool = False) -> StudyRun:
        made = StudyRun.objects.create(study=self.study, run=run, position=self.position, cell=cell, is_base=is_base)
        self.position += 1
        return made

    def arm(self, cell: dict[str, str], ticks: int) -> None:
        """The cell's run as a fork-to-be of its base run: it waits until the base has reached the fork
        tick, then replays the base up to there (voyage.studies.forks) and goes on live."""
        key = base_key(cell)
        if key not in self.bases:
            shared = dict(key)
            others = cell_label(shared)
            base = self.run(cell, self.fork_tick, label=("base" if others == "all runs" else f"base of {others}")
                            + f", seed={cell[SEED]}")
            self.member(base, shared, is_base=True)
            self.bases[key] = base
        base = self.bases[key]
        run = self.run(cell, ticks)
        Run.objects.filter(pk=run.pk).update(forked_from=base, fork_tick=self.fork_tick,
                                             pause_reason=WAITING_FOR_BASE.format(base=base.pk, tick=self.fork_tick))
        chosen = cell[INTERVENTION]
        if chosen != NO_INTERVENTION:
            schedule(run, self.name, chosen, self.specs[chosen], f"{cell_label(cell)}, seed={cell[SEED]}")
        self.member(run, cell)


def schedule(run: Run, study: str, arm: str, spec: dict, label: str) -> None:
    """The arm's intervention, waiting in the run for its tick (the same for every seed)."""
    try:
        intervene(run, **spec, made_by=f"study {study}"[:150])
    except InterventionError as exc:
        raise StudyError(f"run {label}: intervention {arm!r}: {exc}") from None


def _scenario(slug: str) -> Scenario:
    try:
        return Scenario.objects.get(slug=slug)
    except Scenario.DoesNotExist:
        known = ", ".join(Scenario.objects.values_list("slug", flat=True)) or "none"
        raise StudyError(f"there is no scenario {slug!r} (installed: {known})") from None


# What Study.budget_cost holds: 12 digits, 4 of them after the point.
BUDGET_STEP = Decimal("0.0001")
MAX_BUDGET_COST = Decimal("99999999.9999")


def _budget(raw) -> Decimal | None:
    if raw is None or raw == "":
        return None
    try:
        cost = Decimal(str(raw))
    except InvalidOperation:
        raise StudyError(f"--budget-cost {raw!r} is not a number") from None
    if not cost.is_finite() or cost <= 0:
        raise StudyError("--budget-cost must be more than 0")
    if cost > MAX_BUDGET_COST:
        raise StudyError(f"--budget-cost {cost} is more than a study's budget holds ({MAX_BUDGET_COST:,})")
    cost = cost.quantize(BUDGET_STEP)
    if cost <= 0:
        raise StudyError(f"--budget-cost {raw!r} rounds to 0 at four decimal places")
    return cost


def _run_fields(raw: dict[str, str]) -> dict:
    """configure_run's keyword arguments from the axis strings, each turned into its field's type
    (configure_run then checks ranges and the rules across fields)."""
    fields = {}
    for name, value in raw.items():
        if name == PROFILE:
            fields["profile"] = None if value == OFFLINE and not ModelProfile.objects.filter(name=value).exists() \
                else value
            continue
        if name == ROUTES:  # written memory=NAME;agent:KEY=NAME, or none (voyage/gateway/routes.py)
            try:
                fields[name] = parse_routes(value)
            except ValueError as exc:
                raise StudyError(f"{name}: {exc}") from None
            continue
        try:
            fields[name] = Run._meta.get_field(name).to_python(value)
        except ValidationError as exc:
            raise StudyError(f"{name}={value!r}: {' '.join(exc.messages)}") from None
    return fields
