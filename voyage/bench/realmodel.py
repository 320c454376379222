"""Benchmark: a real local model keeping the six-key contract, with and without the per-call schema.

SmolLM2-135M-Instruct runs behind llama-cpp-python's server on 127.0.0.1 (voyage/bench/llama_server.py);
the same ticks, seed and cast of the 1912 scenario run twice through the real OpenAI-compatible
client on a fresh SQLite database: once with the profile's structured output `json_object_schema`
(each action call carries its schema, in the form that server takes) and once with plain
`json_object`. Prints calls, action_fail_share_schema, action_fail_share_plain, the same shares
without "no longer here" (a target gone by the time the action resolves, which a tick-start snapshot
cannot prevent), fail_reasons_schema and fail_reasons_plain (each ACTION_FAIL reason with names and
rooms replaced by placeholders -> count: voyage.bench.contract), parroted_share (answers whose
dialogue copies the rules text; both runs, then each), example_share_schema and example_share_plain
(answers that are the turn's example answer, key for key), actions_schema and actions_plain
(action_type -> count of the answers), unparsed_schema (raw answers of
the schema run that are not valid JSON), prompt_tokens, completion_tokens and s_per_call (mean
latency of a call) over both runs; or, when the server cannot be built or started, one line saying
why ("skipped").
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from django.db.models import Avg, Count, Q, Sum

from voyage.bench.contract import NO_LONGER_HERE, action_mix, example_share, fail_reasons, parroted_share
from voyage.bench.llama_server import MODEL_NAME, ServerUnavailable, llama_server
from voyage.engine.runner import advance, create_run
from voyage.health.load import health_line, health_of
from voyage.models import LLMCall, ModelProfile, Run
from world.models import Persona, Prop, Room, Scenario

ROOT = Path(__file__).resolve().parents[2]
FORMS = {"schema": ModelProfile.JSON_OBJECT_SCHEMA, "plain": ModelProfile.JSON_OBJECT}


def outer(ticks: int, agents: int, provider: str | None = None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"}
        manage = [sys.executable, str(ROOT / "manage.py")]
        subprocess.run(manage + ["migrate", "-v", "0"], env=env, check=True)
        chosen = ["--provider", provider] if provider else []
        out = subprocess.run(manage + ["bench", "realmodel", "--inner", "--ticks", str(ticks), "--agents", str(agents),
                                       *chosen], env=env, check=True, capture_output=True, text=True).stdout
        return json.loads(out.strip().splitlines()[-1])


def inner(ticks: int, agents: int, provider: str | None = None) -> dict:
    figures = {"bench": "realmodel", "model": MODEL_NAME, "ticks": ticks, "agents": agents,
               **({"provider": provider} if provider else {})}
    try:
        with llama_server() as base_url:
            runs = compare(base_url, ticks, agents, provider)
    except ServerUnavailable as exc:
        return {**figures, "skipped": str(exc)}
    return {**figures, **totals(runs)}


def small_run(form: str, base_url: str, ticks: int, agents: int, seed: int = 1912, provider: str | None = None) -> Run:
    """A run of the first `agents` personas (by key) of the 1912 scenario on the local server. With a
    `provider`, its profile takes that provider's defaults (form, dialect, switches) under the bench's own."""
    own = dict(base_url=base_url, model=MODEL_NAME, temperature=0.0, max_tokens=400, timeout_s=300, retries=1,
               concurrency=1)
    if provider:
        made = ModelProfile.for_provider(provider, **own)
        fields = {f.name: getattr(made, f.name) for f in ModelProfile._meta.concrete_fields if f.name not in ("id", "name")}
        form = made.structured_output
    else:
        fields = dict(kind=ModelProfile.OPENAI, structured_output=form, **own)
    profile, _ = ModelProfile.objects.get_or_create(name=f"{MODEL_NAME} ({provider or form})", defaults=fields)
    ModelProfile.objects.filter(pk=profile.pk).update(base_url=base_url)  # a new server, a new port
    run = create_run(Scenario.objects.get(slug="1912"), seed=seed, schedule=Run.SIMULTANEOUS, target_ticks=ticks,
                     profile=ModelProfile.objects.get(pk=profile.pk), name=f"real model, {form}")
    keep = list(run.agents.order_by("persona__key").values_list("pk", flat=True)[:agents])
    run.agents.exclude(pk__in=keep).delete()  # a small cast: nobody else boards
    return run


def compare(base_url: str, ticks: int, agents: int, provider: str | None = None) -> dict[str, Run]:
    """The same ticks, seed and cast with the schema (in `provider`'s form, if given) and without."""
    runs = {}
    for label, form in FORMS.items():
        run = small_run(form, base_url, ticks, agents, provider=provider if label == "schema" else None)
        runs[label] = advance(run, ticks)
    return runs


def fail_share(run: Run, but: str | None = None) -> float:
    """The share of a run's action calls that ended in ACTION_FAIL (`but`: not counting the reasons
    that contain it)."""
    actions = LLMCall.objects.filter(run=run, purpose="action")
    failed = Q(outcome=LLMCall.ACTION_FAIL) & ~Q(detail__contains=but) if but else Q(outcome=LLMCall.ACTION_FAIL)
    counts = actions.aggregate(n=Count("id"), failed=Count("id", filter=failed))
    return round(counts["failed"] / counts["n"], 4) if counts["n"] else 0.0


def reasons(run: Run) -> dict[str, int]:
    scenario = run.scenario
    names = (Persona.objects.filter(scenario=scenario).values_list("display_name", flat=True),
             Prop.objects.filter(scenario=scenario).values_list("name", flat=True),
             Room.objects.filter(scenario=scenario).values_list("name", flat=True))
    return fail_reasons(LLMCall.objects.filter(run=run, purpose="action", outcome=LLMCall.ACTION_FAIL),
                        *(list(n) for n in names))


def unparsed(run: Run) -> int:
    """Answered action calls whose raw answer is not valid JSON."""
    import json

    count = 0
    for raw in LLMCall.objects.filter(run=run, purpose="action", answered=True).values_list("raw_answer", flat=True):
        try:
            json.loads(raw)
        except ValueError:
            count += 1
    return count


def totals(runs: dict[str, Run]) -> dict:
    calls = LLMCall.objects.filter(run__in=list(runs.values()))
    agg = calls.aggregate(n=Count("id"), prompt=Sum("prompt_tokens"), completion=Sum("completion_tokens"),
                          cached=Sum("cached_tokens"), latency=Avg("latency_ms"))
    return {
        "calls": agg["n"],
        "action_fail_share_schema": fail_share(runs["schema"]),
        "action_fail_share_plain": fail_share(runs["plain"]),
        "action_fail_share_schema_but_gone": fail_share(runs["schema"], but=NO_LONGER_HERE),
        "action_fail_share_plain_but_gone": fail_share(runs["plain"], but=NO_LONGER_HERE),
        "fail_reasons_schema": reasons(runs["schema"]),
        "fail_reasons_plain": reasons(runs["plain"]),
        "parroted_share": parroted_share(LLMCall.objects.filter(run__in=list(runs.values()), purpose="action")),
        "parroted_share_schema": parroted_share(LLMCall.objects.filter(run=runs["schema"], purpose="action")),
        "parroted_share_plain": parroted_share(LLMCall.objects.filter(run=runs["plain"], purpose="action")),
        "example_share_schema": example_share(LLMCall.objects.filter(run=runs["schema"], purpose="action")),
        "example_share_plain": example_share(LLMCall.objects.filter(run=runs["plain"], purpose="action")),
        "actions_schema": action_mix(LLMCall.objects.filter(run=runs["schema"], purpose="action")),
        "actions_plain": action_mix(LLMCall.objects.filter(run=runs["plain"], purpose="action")),
        "unparsed_schema": unparsed(runs["schema"]),
        "prompt_tokens": agg["prompt"] or 0,
        "completion_tokens": agg["completion"] or 0,
        "cached_tokens": agg["cached"] or 0,
        "s_per_call": round((agg["latency"] or 0) / 1000, 2),
        "unanswered": calls.filter(answered=False).count(),
        # what the run itself reports of its model (voyage/health): the copying, and its warnings
        "model_health_schema": health_line(health_of(runs["schema"])),
        "model_health_plain": health_line(health_of(runs["plain"])),
    }
