"""Benchmark: what the simultaneous schedule buys against a model with real latency.

A local chat-completions server (tests/fake_openai_server.py, in a process of its own so it does
not share the engine's GIL) answers every call after `latency_ms`. The same ticks of the 1912
scenario run in both schedules on a fresh SQLite database, through the real OpenAI gateway.
Prints sequential_tick_s and simultaneous_tick_s: the mean wall time of an action tick, one whose
only model calls are its action calls, among ticks 2 to ticks + 1 (tick 0, when everyone is still
waking, makes no calls, and tick 1 is the warm-up in which the client opens its connections); a
tick with reflections adds rounds of calls after the actions (reflection, importance, trust: one
latency each), so those ticks are left out of the mean and counted in other_ticks, with the mean
of every tick in *_all_ticks_s. Then speedup, and tick_over_latency: the simultaneous action tick
over one call's latency, whose floor is 1.

gateway_floor_over_latency: the last timed tick's action prompts sent again, all at once, through
the same gateway with no engine work around them (the median of 5 rounds after a warm-up), over one
call's latency: the transport's own share of the tick (the SDK's CPU per call, the server's), which
no change to the engine can go under.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from voyage.engine.runner import advance, create_run
from voyage.gateway.base import ACTION, ModelRequest
from voyage.gateway.factory import gateway_for
from voyage.models import LLMCall, ModelProfile, Run
from world.models import Scenario

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "tests" / "fake_openai_server.py"


def outer(latency_ms: float, ticks: int) -> dict:
    server = subprocess.Popen([sys.executable, str(SERVER), "--latency-ms", str(latency_ms)],
                              stdout=subprocess.PIPE, text=True)
    try:
        base_url = server.stdout.readline().strip()
        if not base_url.startswith("http"):
            raise RuntimeError(f"the fake chat-completions server did not start (said {base_url!r})")
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "DATABASE_URL": f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"}
            manage = [sys.executable, str(ROOT / "manage.py")]
            subprocess.run(manage + ["migrate", "-v", "0"], env=env, check=True)
            out = subprocess.run(manage + ["bench", "concurrency", "--inner", "--latency-ms", str(latency_ms),
                                           "--ticks", str(ticks), "--base-url", base_url],
                                 env=env, check=True, capture_output=True, text=True).stdout
            return json.loads(out.strip().splitlines()[-1])
    finally:
        server.terminate()
        server.wait(timeout=10)


def inner(latency_ms: float, ticks: int, base_url: str) -> dict:
    profile = ModelProfile.objects.create(name="bench concurrency", kind=ModelProfile.OPENAI, base_url=base_url,
                                          model="fake", concurrency=64, timeout_s=30, retries=2)
    figures = {"bench": "concurrency", "latency_ms": latency_ms, "ticks": ticks}
    calls = {}
    for schedule in (Run.SEQUENTIAL, Run.SIMULTANEOUS):
        run = create_run(Scenario.objects.get(slug="1912"), seed=1912, schedule=schedule, target_ticks=ticks + 2,
                         profile=profile)
        stamps = []
        began = time.perf_counter()
        advance(run, ticks + 2, on_tick=lambda tick: stamps.append(time.perf_counter()))
        took = dict(zip(range(2, ticks + 2), (b - a for a, b in zip(stamps[1:], stamps[2:]))))  # ticks 2 .. ticks + 1
        # a call is recorded with the tick it belongs to: those after a tick's actions (reflections and
        # the rest) with the next one, a hard compaction before them with its own; both are left out
        stamped = set(LLMCall.objects.filter(run=run, tick__gte=2).exclude(purpose=ACTION).values_list("tick", flat=True))
        others = {tick for tick in took if tick in stamped or tick + 1 in stamped}
        actions_only = [s for tick, s in took.items() if tick not in others] or list(took.values())
        figures[f"{schedule}_tick_s"] = round(statistics.mean(actions_only), 4)
        figures[f"{schedule}_all_ticks_s"] = round(statistics.mean(took.values()), 4)
        figures[f"{schedule}_other_ticks"] = len(others)
        calls[schedule] = LLMCall.objects.filter(run=run, tick__in=list(took), purpose=ACTION).count() / ticks
        figures[f"{schedule}_wall_s"] = round(time.perf_counter() - began, 3)
    figures["calls_per_tick"] = round(calls[Run.SIMULTANEOUS], 1)  # action calls
    figures["speedup"] = round(figures["sequential_tick_s"] / figures["simultaneous_tick_s"], 2)
    figures["tick_over_latency"] = round(figures["simultaneous_tick_s"] / (latency_ms / 1000), 3)
    # run and took are the loop's last: the simultaneous schedule's
    figures["gateway_floor_over_latency"] = round(gateway_floor(run, max(took)) / (latency_ms / 1000), 3)
    return {k: figures[k] for k in ("bench", "latency_ms", "ticks", "calls_per_tick", "sequential_tick_s",
                                    "simultaneous_tick_s", "speedup", "tick_over_latency",
                                    "gateway_floor_over_latency", "sequential_other_ticks",
                                    "simultaneous_other_ticks", "sequential_all_ticks_s", "simultaneous_all_ticks_s",
                                    "sequential_wall_s", "simultaneous_wall_s")}


def gateway_floor(run: Run, tick: int, rounds: int = 5) -> float:
    """Seconds to send one tick's action prompts at once and have every answer back, on the run's
    own gateway, with nothing else running: the median of `rounds` after a warm-up round."""
    calls = LLMCall.objects.filter(run=run, tick=tick, purpose=ACTION).order_by("id")
    requests = [ModelRequest(purpose=ACTION, messages=c.prompt, tick=tick, agent_id=c.agent_id) for c in calls]
    gateway = gateway_for(run)
    try:
        took = []
        for _ in range(rounds + 1):
            began = time.perf_counter()
            for future in [gateway.start(r) for r in requests]:
                future.result()
            took.append(time.perf_counter() - began)
    finally:
        gateway.close()
    return statistics.median(took[1:])
