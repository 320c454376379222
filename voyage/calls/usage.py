"""What a run's model calls used: totals per run, per agent and per purpose, from the LLMCall rows.

`tokens` is prompt + completion tokens (reasoning tokens are part of the completion, cached tokens
part of the prompt, as the endpoints report them); `retries` counts attempts beyond the first.
"""
from __future__ import annotations

from decimal import Decimal

from django.db.models import Avg, Count, F, Q, Sum

from voyage.gateway.base import INSTRUMENT_PURPOSES
from voyage.models import LLMCall

TOTALS = {
    "calls": Count("id"),
    "no_answer": Count("id", filter=Q(answered=False)),
    "action_fails": Count("id", filter=Q(outcome=LLMCall.ACTION_FAIL)),
    "skipped": Count("id", filter=Q(outcome=LLMCall.SKIPPED)),
    "retries": Sum(F("attempts") - 1),
    "prompt_tokens": Sum("prompt_tokens"),
    "completion_tokens": Sum("completion_tokens"),
    "reasoning_tokens": Sum("reasoning_tokens"),
    "cached_tokens": Sum("cached_tokens"),
    "cost": Sum("cost"),
    "latency_ms_mean": Avg("latency_ms"),
}
# Calls made by a memory job's attempt that was killed: paid for (in the totals above too), but
# nothing was built on them. Shown apart (a query of their own: `cost` above names an aggregate).
ABANDONED = {"abandoned_calls": Count("id"), "abandoned_cost": Sum("cost")}


def _clean(row: dict) -> dict:
    out = {}
    for name in TOTALS:
        value = row.get(name) or 0
        if isinstance(value, Decimal):
            value = float(value)
        out[name] = round(value, 6) if isinstance(value, float) else int(value)
    out["tokens"] = out["prompt_tokens"] + out["completion_tokens"]
    return out


def run_totals(run) -> dict:
    totals = _clean(LLMCall.objects.filter(run=run).aggregate(**TOTALS))
    abandoned = LLMCall.objects.filter(run=run, abandoned=True).aggregate(**ABANDONED)
    return {**totals, "abandoned_calls": abandoned["abandoned_calls"] or 0,
            "abandoned_cost": round(float(abandoned["abandoned_cost"] or 0), 6)}


def simulation_totals(run) -> dict:
    """The run's own calls: its interviews and surveys left out (what its budget counts, so asking an
    agent a question never pauses the run sooner)."""
    return _clean(LLMCall.objects.filter(run=run).exclude(purpose__in=INSTRUMENT_PURPOSES).aggregate(**TOTALS))


SUMMARY = ("tokens", "reasoning_tokens", "cached_tokens", "cost", "retries", "no_answer", "skipped", "abandoned_calls",
           "abandoned_cost")


def usage_summary(run) -> dict:
    """The few totals the batch runner's closing line shows."""
    totals = run_totals(run)
    return {k: totals[k] for k in SUMMARY}


OFFLINE = "(offline policy)"  # how the calls of no profile are listed


def usage_by_profile(run) -> dict:
    """{profile name: totals} over the run's calls, by the profile that answered each; they add up to
    the run's totals."""
    rows = LLMCall.objects.filter(run=run).order_by().values("profile").annotate(**TOTALS)
    return dict(sorted((row["profile"] or OFFLINE, _clean(row)) for row in rows))


def usage_totals(run) -> dict:
    """{"run": {...}, "by_purpose": {purpose: {...}}, "by_agent": {persona key: {...}},
    "by_profile": {profile name: {...}}, "abandoned_by_purpose": {purpose: {...}}} — the last: calls of
    memory-job attempts that were killed (counted in the others too: they were paid for)."""
    calls = LLMCall.objects.filter(run=run).order_by()
    by_purpose = {row["purpose"]: _clean(row) for row in calls.values("purpose").annotate(**TOTALS)}
    by_agent = {row["agent__persona__key"] or "(shared)": _clean(row)
                for row in calls.values("agent__persona__key").annotate(**TOTALS)}
    abandoned = {row["purpose"]: _clean(row) for row in calls.filter(abandoned=True).values("purpose").annotate(**TOTALS)}
    return {"run": run_totals(run), "by_purpose": dict(sorted(by_purpose.items())),
            "by_agent": dict(sorted(by_agent.items())), "by_profile": usage_by_profile(run),
            "abandoned_by_purpose": dict(sorted(abandoned.items()))}
