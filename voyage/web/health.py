"""The model-health panel of the run overview and the agent inspector (voyage/health): the figures,
and the warnings in plain words with links to calls that show them."""
from __future__ import annotations

from voyage.health.load import health_of
from voyage.health.shares import summarise
from voyage.health.warnings import MIN_ANSWERS

SHOWN_CALLS = 2000  # a page reads the latest action calls only (about 0.2 s of prompts)
FIGURES = (("example_copy_share", "answers that copy the turn's example answer"),
           ("repeat_share", "answers that repeat the agent's previous one"),
           ("distinct_dialogue_share", "distinct lines among the lines said"),
           ("action_fail_share", "action calls ending in ACTION_FAIL"),
           ("action_evenness", "evenness of the actions chosen (Pielou, 0 one action, 1 all alike)"))


def figures(summary: dict) -> list[tuple[str, str, object]]:
    return [(key, label, summary.get(key)) for key, label in FIGURES]


def cached_health(run) -> dict:
    """health_of the run's latest SHOWN_CALLS action calls, kept in the cache until a new action call
    is recorded (a finished run's pages read their prompts once)."""
    from django.core.cache import cache

    from voyage.models import LLMCall

    last = LLMCall.objects.filter(run=run, purpose="action").order_by("-id").values_list("id", flat=True).first()
    key = f"voyage:model-health:{run.pk}:{last}:{SHOWN_CALLS}"
    health = cache.get(key)
    if health is None:
        health = health_of(run, recent=SHOWN_CALLS)
        cache.set(key, health, timeout=3600)
    return health


def run_panel(run) -> dict:
    health = cached_health(run)
    return {"health": health, "warnings": health["warnings"], "figures": figures(health["run"]),
            "shown_calls": SHOWN_CALLS, "min_answers": MIN_ANSWERS}


def agent_panel(run, agent_key: str) -> dict:
    """This agent's figures over the run, and each day's."""
    health = cached_health(run)
    days = [(day, figures(summary)) for (agent, day), summary in health["by_agent_day"].items() if agent == agent_key]
    return {"health": health, "warnings": health["warnings"],  # the run's: a model's habit is the run's
            "figures": figures(health["by_agent"].get(agent_key) or summarise([])),
            "days": days, "shown_calls": SHOWN_CALLS, "min_answers": MIN_ANSWERS}
