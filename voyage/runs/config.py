"""Configuring a run: the one validating entry point behind the admin's run form, the API and studies.

`configure_run` checks everything first and raises one django ValidationError whose messages are
keyed by field (so a form can show each at its field); on any error nothing is written. A model
profile whose key variable is not set in this process is only a warning (the worker may have it):
it comes back on the run as `run.warnings`.

`clone_run`, `replay_run` and `update_run_params` go through the same checks. A started run keeps
its configuration: only its budget and its target length may change, and only upwards.
"""
from __future__ import annotations

import os
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction

from voyage.engine.runner import create_run
from voyage.gateway.routes import route_problems
from voyage.models import MAX_RUN_AHEAD, ModelProfile, Run
from world.models import Persona, Scenario
from world.time import TICKS_PER_DAY

# The run's parameters (the memory limits and the rest of the Run model's): every one may be given to configure_run.
PARAMETERS = ("malformed_rate", "hot_memory_limit", "compaction_memory_count", "compaction_soft_chars",
              "compaction_hard_chars", "reflection_ticks", "reflection_cooldown", "importance_threshold",
              "attrition_threshold", "fatigue_warning", "fatigue_limit", "budget_tokens", "budget_cost",
              "context_layout", "profile_routes", "example_answer", "run_ahead", "memory")
# Help for each parameter (the admin form shows it; the API may reuse it for its schema).
PARAMETER_HELP = {
    "malformed_rate": "offline model only: the share of its answers that are deliberately malformed (0–1), "
                      "to watch ACTION_FAIL at work",
    "hot_memory_limit": "the hot window: how many of an agent's newest raw memory rows its prompt carries in full",
    "compaction_memory_count": "queue a compaction once this many rows older than the hot window are not yet "
                               "summarised",
    "compaction_soft_chars": "…or once their text reaches this many characters (queued on the memory worker; must "
                             "be below the hard limit)",
    "compaction_hard_chars": "at this many characters compaction runs before the agent's next call",
    "reflection_ticks": "ticks of each day (0–479) at which agents reflect, as a JSON list; empty for the default "
                        "[15, 30, 45, 60]",
    "reflection_cooldown": "ticks an agent waits between two reflections",
    "importance_threshold": "accumulated importance that counts as a tension spike and triggers a reflection",
    "attrition_threshold": "ticks alone and awake in a private room before a rumour about the agent goes round",
    "fatigue_warning": "actions since the last sleep at which an agent is warned it is tired (below the limit)",
    "fatigue_limit": "actions since the last sleep at which an agent falls asleep where it stands",
    "budget_tokens": "pause the run once its model calls have used this many tokens (empty: no limit)",
    "budget_cost": "pause the run once its model calls have cost this much (empty: no limit)",
    "context_layout": "how an action prompt is laid out: 'seed' (the seed's order, hot window newest first) or "
                      "'cached' (what changes every turn last, so consecutive prompts share a long prefix that "
                      "providers can cache); the same content either way. Empty: cached for a real model, "
                      "seed for the offline policy",
    "example_answer": "the example answer each action prompt ends with: 'rotating' (a different valid answer per "
                      "agent and turn, naming what is here: the default), 'neutral' (the same answer every turn, "
                      "naming no one) or 'none' (the allowed actions only); small models copy the example, capable "
                      "ones may be anchored by it",
    "profile_routes": 'other model profiles for some calls, by name: {"memory": "strong"} (compaction, eras, '
                      'dreams, diary, trust, reflection, importance, bulletin), {"instruments": ...} (interviews, '
                      'surveys), {"actions": ...}, and {"agent:PERSONA_KEY": ...} for that agent\'s actions; the '
                      "main profile answers every call not named. Empty: the main profile answers all",
    "memory": "memory ablation: 'full', a part switched off ('no_summaries', 'no_reflection', 'no_dreams', "
              "'no_trust', 'no_recall') or 'hot_window_only' (all of them off), to rank memory architectures in a "
              "study (docs/judging.md)",
    "run_ahead": f"simultaneous schedule only: how many ticks an agent may run ahead of the slowest agent, "
                 f"0–{MAX_RUN_AHEAD} (0: lock-step, every agent waits for every other each tick); agents whose "
                 f"calls cannot affect each other stop waiting for each other. The transcript is the same for "
                 f"every value; the sequential schedule ignores it",
}
# What a started run may still change, and only upwards.
GROWABLE = ("target_ticks", "budget_tokens", "budget_cost")
# Fields a configured run is made of; clone and update work over these.
CONFIG_FIELDS = ("name", "scenario", "profile", "seed", "schedule", "target_ticks", *PARAMETERS)
# Fields rule_errors checks whole (type and range), with a message naming them: the model's own
# field check ("Ensure this value is...") is left out for these.
RULE_CHECKED = ("run_ahead",)


def rule_errors(values: dict) -> dict[str, str]:
    """The configuration rules across fields, over plain values (no database). Keys are field names."""
    errors = {}
    soft, hard = values.get("compaction_soft_chars"), values.get("compaction_hard_chars")
    if isinstance(soft, int) and isinstance(hard, int) and soft >= hard:
        errors["compaction_soft_chars"] = (f"soft compaction characters ({soft:,}) must be below the hard limit "
                                           f"({hard:,}): at the soft mark compaction is queued, at the hard one "
                                           f"it runs before the call")
    warning, limit = values.get("fatigue_warning"), values.get("fatigue_limit")
    if isinstance(warning, int) and isinstance(limit, int) and warning >= limit:
        errors["fatigue_warning"] = (f"the fatigue warning ({warning}) must come before the forced sleep at "
                                     f"the fatigue limit ({limit})")
    if "reflection_ticks" in values and (problem := reflection_ticks_problem(values["reflection_ticks"])):
        errors["reflection_ticks"] = problem
    target = values.get("target_ticks")
    if target is not None and target <= 0:
        errors["target_ticks"] = "a run needs a length of at least one tick"
    if values.get("profile_routes") and (problems := route_problems(values["profile_routes"])):
        errors["profile_routes"] = "; ".join(problems)
    rate = values.get("malformed_rate")
    if rate is not None and not 0 <= rate <= 1:
        errors["malformed_rate"] = "a share between 0 and 1"
    if "run_ahead" in values and (problem := run_ahead_problem(values["run_ahead"])):
        errors["run_ahead"] = problem
    return errors


def run_ahead_problem(ahead) -> str | None:
    """Why `ahead` is not a run_ahead (None when it is): a whole number of ticks, 0 to MAX_RUN_AHEAD."""
    if isinstance(ahead, bool) or not isinstance(ahead, int) or not 0 <= ahead <= MAX_RUN_AHEAD:
        return (f"run_ahead is the ticks an agent may run ahead of the slowest agent: a whole number from 0 "
                f"(lock-step) to {MAX_RUN_AHEAD}; got {ahead!r}")
    return None


def reflection_ticks_problem(ticks) -> str | None:
    """Why `ticks` is not a list of ticks within the day (None when it is). Empty means the defaults."""
    if not isinstance(ticks, (list, tuple)):
        return f"a list of ticks of the day (0–{TICKS_PER_DAY - 1}), e.g. [15, 30, 45, 60]; got {ticks!r}"
    bad = [t for t in ticks if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < TICKS_PER_DAY]
    if bad:
        return (f"each reflection tick is a whole number of ticks into the day, 0–{TICKS_PER_DAY - 1}; "
                f"not {', '.join(repr(t) for t in bad)}")
    if len(set(ticks)) != len(ticks):
        return "a reflection tick is listed twice"
    return None


def profile_warnings(profile: ModelProfile | None, routes: dict | None = None) -> list[str]:
    """Warnings, not errors: the process that runs the run (the worker) may have what this one lacks."""
    routed = ModelProfile.objects.filter(name__in=set((routes or {}).values())).exclude(pk=getattr(profile, "pk", None))
    return [w for p in [profile, *routed.order_by("name")] for w in _key_warning(p)]


def _key_warning(profile: ModelProfile | None) -> list[str]:
    if profile and profile.kind == ModelProfile.OPENAI and profile.api_key_env \
            and not os.environ.get(profile.api_key_env):
        return [f"model profile {profile.name!r} reads its API key from ${profile.api_key_env}, which is not set "
                f"in this process; the worker that runs this run must have it"]
    return []


def _scenario(scenario) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    try:
        return Scenario.objects.get(slug=scenario)
    except Scenario.DoesNotExist:
        known = ", ".join(Scenario.objects.order_by("slug").values_list("slug", flat=True)) or "none"
        raise ValidationError({"scenario": f"there is no scenario {scenario!r} (installed: {known})"}) from None


def _profile(profile) -> ModelProfile | None:
    if profile is None or profile == "" or isinstance(profile, ModelProfile):
        return profile or None
    try:
        return ModelProfile.objects.get(name=profile)
    except ModelProfile.DoesNotExist:
        known = ", ".join(ModelProfile.objects.order_by("name").values_list("name", flat=True)) or "none"
        raise ValidationError({"profile": f"there is no model profile {profile!r} (defined: {known})"}) from None


def _cast(scenario: Scenario, cast) -> tuple[list[Persona], dict[str, str]]:
    """The personas of the cast (None: all of the scenario's), and an error under 'cast' if any."""
    personas = {p.key: p for p in scenario.personas.order_by("key")}
    if cast is None:
        chosen = list(personas.values())
    else:
        keys = [cast] if isinstance(cast, str) else list(dict.fromkeys(
            c.key if isinstance(c, Persona) else c for c in cast))
        unknown = [k for k in keys if k not in personas]
        if unknown:
            return [], {"cast": f"no persona {', '.join(map(repr, unknown))} in scenario {scenario.slug!r}"}
        chosen = [personas[k] for k in keys]
    if len(chosen) < 2:
        return chosen, {"cast": f"a cast needs at least two personas (this one has {len(chosen)}): "
                                f"nobody to meet, talk to or suspect"}
    return chosen, {}


def _length(ticks, days) -> tuple[int | None, dict[str, str]]:
    if ticks is not None and days is not None:
        return None, {"ticks": "give the length in days or in ticks, not both"}
    if days is not None:
        if not isinstance(days, (int, float, Decimal)) or isinstance(days, bool):
            return None, {"days": f"a number of days; got {days!r}"}
        if round(days * TICKS_PER_DAY) <= 0:
            return None, {"days": f"a run needs a length of more than zero days (a day is {TICKS_PER_DAY} ticks)"}
        return round(days * TICKS_PER_DAY), {}
    if ticks is not None:
        if not isinstance(ticks, int) or isinstance(ticks, bool):
            return None, {"ticks": f"a whole number of ticks; got {ticks!r}"}
        if ticks <= 0:
            return None, {"ticks": "a run needs a length of at least one tick"}
        return ticks, {}
    return TICKS_PER_DAY, {}


def _field_errors(run: Run, exclude: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """Each field checked by the model's own field validation (types, ranges, choices)."""
    try:
        run.clean_fields(exclude=list(exclude))
    except ValidationError as exc:
        return exc.message_dict
    return {}


def _raise(errors: dict) -> None:
    if errors:
        raise ValidationError({k: v if isinstance(v, list) else [v] for k, v in errors.items()})


def check_config(scenario, *, cast=None, profile=None, schedule: str = Run.SEQUENTIAL, seed: int = 1912,
                 ticks: int | None = None, days: float | None = None, name: str = "", replay_of: Run | None = None,
                 **params) -> list[str]:
    """configure_run's checks without writing: raises its ValidationError, or returns its warnings."""
    run, _, _ = _validated(scenario, cast, profile, schedule, seed, ticks, days, name, replay_of, params)
    return profile_warnings(run.profile, run.profile_routes)


def configure_run(scenario, *, cast=None, profile=None, schedule: str = Run.SEQUENTIAL, seed: int = 1912,
                  ticks: int | None = None, days: float | None = None, name: str = "", replay_of: Run | None = None,
                  **params) -> Run:
    """A new run, ready to start: its agents exist (asleep in their home rooms, waking at tick 0).

    scenario: a Scenario or its slug. cast: None for every persona, or persona keys (at least two).
    profile: None (the offline scripted policy), a ModelProfile or its name. Length: `ticks` or `days`
    (default one day). params: any of PARAMETERS. Raises ValidationError keyed by field; on error
    nothing is written. `run.warnings` lists what is allowed but worth saying.
    """
    run, personas, target = _validated(scenario, cast, profile, schedule, seed, ticks, days, name, replay_of, params)
    fields = {f: getattr(run, f) for f in PARAMETERS}
    created = create_run(run.scenario, personas=personas, seed=run.seed, schedule=run.schedule, target_ticks=target,
                         name=run.name, profile=run.profile, replay_of=replay_of, **fields)
    created.warnings = profile_warnings(created.profile, created.profile_routes)
    return created


def _validated(scenario, cast, profile, schedule, seed, ticks, days, name, replay_of, params):
    """(an unsaved Run holding the cleaned values, the cast's personas, the length in ticks), or
    ValidationError with every problem keyed by field."""
    errors: dict = {}
    for key in sorted(set(params) - set(PARAMETERS)):
        errors[key] = f"unknown run parameter {key!r} (known: {', '.join(PARAMETERS)})"
    try:
        scenario = _scenario(scenario)
    except ValidationError as exc:
        _raise({**errors, **exc.message_dict})
    try:
        profile = _profile(profile)
    except ValidationError as exc:
        errors.update(exc.message_dict)
        profile = None
    personas, cast_errors = _cast(scenario, cast)
    errors.update(cast_errors)
    target, length_errors = _length(ticks, days)
    errors.update(length_errors)
    known = {k: v for k, v in params.items() if k in PARAMETERS}
    if known.get("profile_routes") is None:  # none given (a blank form field): every call to the main profile
        known["profile_routes"] = {}
    if not known.get("context_layout"):  # none chosen: the one the run's model calls for
        known["context_layout"] = Run.layout_for(profile)
    run = Run(scenario=scenario, profile=profile, schedule=schedule, seed=seed, name=name or "",
              target_ticks=target or TICKS_PER_DAY, replay_of=replay_of, **known)
    for key, messages in _field_errors(run, exclude=("scenario", "profile", "replay_of", *RULE_CHECKED)).items():
        errors.setdefault(key, messages)
    values = {f: getattr(run, f) for f in CONFIG_FIELDS if f not in ("scenario", "profile", "target_ticks")}
    for key, message in rule_errors(values).items():  # the length was checked above, under its own name
        errors.setdefault(key, message)
    if run.profile_routes and "profile_routes" not in errors and not cast_errors:
        names = set(ModelProfile.objects.values_list("name", flat=True))
        if problems := route_problems(run.profile_routes, {p.key for p in personas}, names):
            errors["profile_routes"] = "; ".join(problems)
    _raise(errors)
    return run, personas, target


def run_config(run: Run) -> dict:
    """configure_run's arguments that would make `run` again (its cast included)."""
    keys = list(run.agents.order_by("persona__key").values_list("persona__key", flat=True))
    return {"scenario": run.scenario, "cast": keys, "profile": run.profile, "schedule": run.schedule,
            "seed": run.seed, "ticks": run.target_ticks, "name": run.name,
            **{f: getattr(run, f) for f in PARAMETERS}}


def clone_run(run: Run, seed: int | None = None) -> Run:
    """A new run with `run`'s configuration (scenario, cast, model, schedule, length, parameters),
    optionally with another seed. It runs on its model profile (or the offline policy), never on
    recorded answers: that is replay_run."""
    config = run_config(run)
    config["name"] = f"clone of run {run.pk}" + (f", seed {seed}" if seed is not None else "")
    if run.replay_of_id:  # a replay's model is its source's recorded answers, which follow its seed
        if seed is not None and seed != run.seed:
            raise ValidationError({"seed": f"run {run.pk} replays run {run.replay_of_id}, whose answers follow "
                                           f"seed {run.seed}: a clone of it cannot take another seed"})
        config["replay_of"] = run.replay_of
    if seed is not None:
        config["seed"] = seed
    return configure_run(**config)


def replay_run(run: Run) -> Run:
    """A new run whose answers come from `run`'s recorded calls, as long as `run` has gone: same
    scenario, cast, seed, schedule and parameters, so it produces the identical transcript."""
    if run.tick == 0:
        raise ValidationError({"replay_of": f"run {run.pk} has recorded no ticks yet: there is nothing to replay"})
    config = run_config(run)
    config.update(profile=None, ticks=run.tick, name=f"replay of run {run.pk}", replay_of=run,
                  budget_tokens=None, budget_cost=None)
    return configure_run(**config)


def has_started(run: Run) -> bool:
    """Queued on the worker (control.start stamps the heartbeat), or with ticks behind it."""
    return run.tick > 0 or run.heartbeat_at is not None or run.state != Run.QUEUED


def check_update(run: Run, **changes) -> Run:
    """update_run_params's checks without writing: the run as it would be, or ValidationError."""
    settable = {"name", "profile", "seed", "schedule", "target_ticks", *PARAMETERS}
    errors = {k: f"unknown run parameter {k!r}" for k in changes if k not in settable}
    _raise(errors)
    current = Run.objects.get(pk=run.pk)
    if has_started(current):
        for key, value in changes.items():
            if key == "name":
                continue
            old = getattr(current, key)
            if key not in GROWABLE:
                if value != old:
                    errors[key] = (f"run {current.pk} has started (tick {current.tick}, {current.state}): its {key} "
                                   f"can no longer change; clone it to try another value")
            elif key != "target_ticks" and value is None:
                continue  # no budget at all: the most a budget can grow
            elif value is None or (old is not None and value < old):
                errors[key] = f"{key} of a started run may only grow (it is {old}); got {value}"
    if "profile" in changes:
        try:
            changes["profile"] = _profile(changes["profile"])
        except ValidationError as exc:
            errors.update(exc.message_dict)
    if changes.get("profile_routes") is None and "profile_routes" in changes:
        changes["profile_routes"] = {}
    if changes.get("profile_routes"):
        cast = set(current.agents.values_list("persona__key", flat=True))
        names = set(ModelProfile.objects.values_list("name", flat=True))
        if problems := route_problems(changes["profile_routes"], cast, names):
            errors["profile_routes"] = "; ".join(problems)
    _raise(errors)
    for key, value in changes.items():
        setattr(current, key, value)
    errors = _field_errors(current, exclude=("scenario", "profile", "replay_of", *RULE_CHECKED))
    values = {f: getattr(current, f) for f in CONFIG_FIELDS if f not in ("scenario", "profile")}
    for key, message in rule_errors(values).items():
        errors.setdefault(key, message)
    _raise(errors)
    current.changes = {k: getattr(current, k) for k in changes}
    return current


def update_run_params(run: Run, **changes) -> Run:
    """Change a run's configuration. Before it has started, anything configure_run accepts (cast
    excepted); once started, only the budget and the target length, and only upwards."""
    with transaction.atomic():
        Run.objects.select_for_update().filter(pk=run.pk).exists()  # hold the row while checking
        current = check_update(run, **changes)
        if current.changes:
            Run.objects.filter(pk=current.pk).update(**current.changes)
    current.warnings = profile_warnings(current.profile) if "profile" in changes else []
    return current
