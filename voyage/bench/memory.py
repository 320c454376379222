"""Benchmark: memory over several offline days of the 1912 scenario, on a fresh SQLite database,
with the memory jobs done after each tick's commit, as the batch runner does them.

Prints max_prompt_chars (any action prompt of the run), mean_prompt_chars (action prompts on the
last day), full_history_chars (the mean, over those prompts, of the agent's whole raw history at that
moment), reduction (1 - mean of prompt/history on the last day), mean_prompt_chars_by_day,
summaries, eras, compactions (compaction calls), dreams, diary_entries, and context_ms_small /
context_ms_large: building one action context for an agent with 1,000 and with 200,000 rows; and
prefix_share: per action call, the longest common prefix (characters) with the same agent's previous
action prompt as a share of the prompt, averaged over the run (what a provider's prefix cache could
reuse); recall_query_share: the share of action calls whose prompt searched the agent's older rows
(the others reuse the search their agent's recall state holds). `--layout cached` runs the cached
context layout instead of the seed's."""
from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from bisect import bisect_left
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

from django.db.models.functions import Length

from memories import context
from memories.models import DiaryEntry, Dream, Memory, MemorySummary
from voyage.engine.runner import advance, create_run
from voyage.engine.steps import action_request
from voyage.engine.world import RunWorld
from voyage.gateway.prompts import prompt_text
from voyage.models import LLMCall
from world.models import AgentState, Scenario
from world.time import TICKS_PER_DAY

ROOT = Path(__file__).resolve().parents[2]


def outer(days: float, layout: str = "seed") -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite3"
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}"}
        manage = [sys.executable, str(ROOT / "manage.py")]
        subprocess.run(manage + ["migrate", "-v", "0"], env=env, check=True)
        out = subprocess.run(manage + ["bench", "memory", "--inner", "--days", str(days), "--layout", layout],
                             env=env, check=True, capture_output=True, text=True).stdout
        return json.loads(out.strip().splitlines()[-1])


def inner(days: float, layout: str = "seed") -> dict:
    import logging

    logging.getLogger("django-q").setLevel(logging.WARNING)
    scenario = Scenario.objects.get(slug="1912")
    run = create_run(scenario, seed=1912, target_ticks=round(days * TICKS_PER_DAY), context_layout=layout)
    began = time.perf_counter()
    with recall_searches() as searches:
        advance(run, run.target_ticks, memory_inline=True)
    figures = {"bench": "memory", "days": days, "layout": layout, "run_wall_s": round(time.perf_counter() - began, 1)}
    actions = LLMCall.objects.filter(run=run, purpose="action").count()
    figures.update(recall_queries=len(searches), recall_query_share=round(len(searches) / max(1, actions), 4))
    figures.update(prompt_figures(run))
    figures.update({
        "summaries": MemorySummary.objects.filter(run=run).count(),
        "eras": MemorySummary.objects.filter(run=run, level__gt=0).count(),
        "compactions": LLMCall.objects.filter(run=run, purpose="compaction").count(),
        "dreams": Dream.objects.filter(run=run).count(),
        "diary_entries": DiaryEntry.objects.filter(run=run).count(),
    })
    figures.update(context_timings(scenario))
    return figures


@contextmanager
def recall_searches():
    """The context builder's searches of older rows (memories.context.recall) while in the block."""
    search, made = context.recall, []

    def counted(*args, **kwargs):
        made.append(args[0])
        return search(*args, **kwargs)
    context.recall = counted
    try:
        yield made
    finally:
        context.recall = search


def prompt_figures(run) -> dict:
    """Prompt sizes against each agent's raw history at the moment of the call."""
    ticks, sums = defaultdict(list), defaultdict(list)
    rows = Memory.objects.filter(run=run).order_by("agent_id", "id").values_list("agent_id", "tick", Length("text"))
    for aid, tick, n in rows.iterator(chunk_size=5000):
        ticks[aid].append(tick)
        sums[aid].append((sums[aid][-1] if sums[aid] else 0) + n)
    last_day = (run.tick - 1) // TICKS_PER_DAY
    by_day, ratios, history, largest = defaultdict(list), [], [], 0
    previous, shares = {}, []
    calls = (LLMCall.objects.filter(run=run, purpose="action").order_by("id")
             .values_list("agent_id", "tick", "prompt_z"))
    for aid, tick, blob in calls.iterator(chunk_size=2000):
        call = LLMCall(prompt_z=blob)
        size = sum(len(m["content"]) for m in call.prompt)
        text = prompt_text(call.prompt)
        if aid in previous:
            shares.append(common_prefix(previous[aid], text) / len(text))
        previous[aid] = text
        largest = max(largest, size)
        day = tick // TICKS_PER_DAY
        by_day[day].append(size)
        if day == last_day:
            i = bisect_left(ticks[aid], tick)  # rows committed before this tick
            full = sums[aid][i - 1] if i else 0
            if full:
                ratios.append(size / full)
                history.append(full)
    return {
        "max_prompt_chars": largest,
        "mean_prompt_chars": round(statistics.mean(by_day[last_day])),
        "full_history_chars": round(statistics.mean(history)),
        "reduction": round(1 - statistics.mean(ratios), 4),
        "prefix_share": round(statistics.mean(shares), 4),
        "mean_prompt_chars_by_day": [round(statistics.mean(by_day[d])) for d in sorted(by_day)],
    }


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix, by bisection over slice comparisons (done in C)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def context_timings(scenario) -> dict:
    """One action context for an agent with 1,000 rows and one with 200,000, in a fresh run; the
    recall cache is cleared before each build so every build searches the stream."""
    run = create_run(scenario, seed=7, target_ticks=0, name="bench memory context")
    agents = list(AgentState.objects.filter(run=run).select_related("persona").order_by("id"))
    small, large, company = agents[0], agents[1], agents[2:6]
    sample = list(Memory.objects.exclude(run=run).order_by("id").values_list("kind", "importance", "text")[:20000])
    room = small.persona.home_node_id
    for a in [small, large] + company:
        a.location_id, a.asleep, a.rung, a.busy_until_tick = room, False, 1, 0
        a.save()
    rng = random.Random(7)
    for agent, n in ((small, 1_000), (large, 200_000)):
        batch = []
        for i in range(n):
            kind, importance, text = sample[rng.randrange(len(sample))]
            batch.append(Memory(run=run, agent=agent, tick=i * 10_000 // n, kind=kind, importance=importance, text=text))
            if len(batch) == 5000:
                Memory.objects.bulk_create(batch)
                batch = []
        Memory.objects.bulk_create(batch)
    world = RunWorld(run)
    timings = {}
    for label, agent in (("small", small), ("large", large)):
        a = world.agents[agent.id]
        action_request(world, a, 10_000)  # warm
        samples = []
        for _ in range(40):
            a.recall = {}  # no recall state: the prompt searches
            t = time.perf_counter()
            action_request(world, a, 10_000)
            samples.append(1000 * (time.perf_counter() - t))
        timings[f"context_ms_{label}"] = round(statistics.median(samples), 3)
    timings["rows_small"] = Memory.objects.filter(agent_id=small.id).count()
    timings["rows_large"] = Memory.objects.filter(agent_id=large.id).count()
    return timings
