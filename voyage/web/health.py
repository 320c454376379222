"""The model-health panel of the run overview and the agent inspector (voyage/health): the figures,
and the warnings in plain words with links to calls that show them."""
from __future__ import annotations

from voyage.health.load import action_calls, action_profiles, health_of_calls, name_shape, scripted_by
from voyage.health.shares import summarise
from voyage.health.warnings import MIN_ANSWERS
from voyage.models import LLMCall

SHOWN_CALLS = 2000  # a page reads the latest action calls only (about 0.2 s of prompts)
FIGURES = (("example_copy_share", "answers that copy the turn's example answer"),
           ("repeat_share", "answers that repeat the agent's previous one"),
           ("distinct_dialogue_share", "distinct lines among the lines said"),
           ("ignored_field_share", "answers filling in what their action ignores (set aside, no cost)"),
           ("action_fail_share", "action calls ending in ACTION_FAIL"),
           ("action_evenness", "evenness of the actions chosen (Pielou, 0 one action, 1 all alike)"))


def figures(summary: dict) -> list[tuple[str, str, object]]:
    return [(key, label, summary.get(key)) for key, label in FIGURES]


def cached_health(run) -> dict:
    """health_of the run's latest SHOWN_CALLS action calls. Reading a call means decompressing its
    prompt, nearly all of the cost, so the calls read are kept in the cache and a page load reads only
    those recorded since (a live run: one tick's worth), not all SHOWN_CALLS again after every tick.
    The figures are kept too, under a key of their own (small: a page load that finds no newer call
    reads only them), with what else they were computed from (whether the answers were scripted,
    the scenario's names), checked at every load so an edit is never hidden."""
    from django.core.cache import cache

    base = f"voyage:model-health:v3:{run.uuid}:{SHOWN_CALLS}"  # v3: figures kept; uuid: a reused id is another run
    shape = name_shape(run.scenario_id)
    kept = cache.get(f"{base}:figures")
    if kept is not None:
        last_id, profiles, inputs, health = kept
        if not LLMCall.objects.filter(run=run, purpose="action", id__gt=last_id).exists():
            if inputs == health_inputs(last_id, scripted_by(run, profiles), shape):
                return health
    calls = cache.get(f"{base}:calls")
    if calls is None:
        (calls, partial), profiles = first_read(run), action_profiles(run)
    else:
        calls, partial, profiles = calls
        since = action_calls([run.pk], since_id=calls[-1].id if calls else 0).get(run.pk, [])
        calls = calls + since
        profiles = profiles | {c.profile for c in since}
        partial = partial or len(calls) > SHOWN_CALLS
        calls = calls[-SHOWN_CALLS:]
    last_id, scripted = (calls[-1].id if calls else 0), scripted_by(run, profiles)
    health = health_of_calls(run, calls, partial, scripted=scripted, shape=shape)
    cache.set(f"{base}:calls", (calls, partial, profiles), timeout=3600)
    cache.set(f"{base}:figures", (last_id, profiles, health_inputs(last_id, scripted, shape), health), timeout=3600)
    return health


def health_inputs(last_id: int, scripted: bool, shape) -> tuple:
    """What the figures were computed from besides the calls read up to `last_id`."""
    return last_id, scripted, sorted(shape.keywords.items())


def first_read(run) -> tuple[list, bool]:
    """The run's latest SHOWN_CALLS action calls, and whether there were more."""
    ids = LLMCall.objects.filter(run=run, purpose="action").order_by("-id").values_list("id", flat=True)
    since = next(iter(ids[SHOWN_CALLS:SHOWN_CALLS + 1]), 0)
    return action_calls([run.pk], since_id=since).get(run.pk, []), since > 0


def run_panel(run) -> dict:
    health = cached_health(run)
    profiles = [(name or "(unnamed)", figures(summary)) for name, summary in health["by_profile"].items()]
    return {"health": health, "warnings": health["warnings"], "figures": figures(health["run"]),
            "profiles": profiles, "shown_calls": SHOWN_CALLS, "min_answers": MIN_ANSWERS}


def agent_panel(run, agent_key: str) -> dict:
    """This agent's figures over the run, and each day's."""
    health = cached_health(run)
    days = [(day, figures(summary)) for (agent, day), summary in health["by_agent_day"].items() if agent == agent_key]
    return {"health": health, "warnings": health["warnings"],  # the run's: a model's habit is the run's
            "figures": figures(health["by_agent"].get(agent_key) or summarise([])),
            "days": days, "shown_calls": SHOWN_CALLS, "min_answers": MIN_ANSWERS}
