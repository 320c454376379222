"""The model-health panel of the run overview and the agent inspector (voyage/health): the figures,
and the warnings in plain words with links to calls that show them."""
from __future__ import annotations

from voyage.health.load import action_calls, health_of_calls
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
    those recorded since (a live run: one tick's worth), not all SHOWN_CALLS again after every tick."""
    from django.core.cache import cache

    key = f"voyage:model-health-calls:v2:{run.pk}:{SHOWN_CALLS}"  # v2: calls name their profile
    kept = cache.get(key)
    if kept is None:
        calls, partial = first_read(run)
    else:
        calls, partial = kept
        calls = calls + action_calls([run.pk], since_id=calls[-1].id if calls else 0).get(run.pk, [])
        partial = partial or len(calls) > SHOWN_CALLS
        calls = calls[-SHOWN_CALLS:]
    cache.set(key, (calls, partial), timeout=3600)
    return health_of_calls(run, calls, partial)


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
