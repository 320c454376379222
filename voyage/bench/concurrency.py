"""Benchmark: what the simultaneous schedule buys against a model with real latency.

A local chat-completions server (voyage/bench/fake_openai_server.py, in a process of its own so it does
not share the engine's GIL) answers every call after `latency_ms`. The same ticks of the 1912
scenario run in both schedules on a fresh SQLite database, through the real OpenAI gateway.
Prints sequential_tick_s and simultaneous_tick_s: the mean wall time of an action tick, one whose
only model calls are its action calls, among ticks 2 to ticks + 1 (tick 0, when everyone is still
waking, makes no calls, and tick 1 is the warm-up in which the client opens its connections); a
tick with reflections adds rounds of calls after the actions (reflection, importance, trust: one
latency each), so those ticks are left out of the mean and counted in other_ticks, with the mean
of every tick in *_all_ticks_s. Then speedup, and tick_over_latency: the simultaneous action tick
over one call's latency, whose floor is 1.

With `--latency lognormal:MEDIAN_MS:SIGMA` (lognormal_outer) the server answers each call after a
latency drawn from that lognormal, seeded by the request's content (the same call waits the same
time in every run), and the simultaneous schedule runs the ticks of 1912 once: it prints the wall
seconds per simulated hour (20 ticks), tick_over_latency (wall seconds per tick over the median),
the share of the agents' time with a call out, and the latencies met (docs/out-of-order.md). What
an out-of-order schedule could make of the same ticks: `bench ahead`.

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

from voyage.bench.fake_openai_server import parse_latency
from voyage.calls.factory import gateway_for
from voyage.engine.runner import advance, create_run, transcript_sha256
from voyage.gateway.base import ACTION, ModelRequest
from voyage.gateway.in_flight import InFlightMeter
from voyage.models import LLMCall, ModelProfile, Run
from world.models import AgentState, Scenario
from world.time import MINUTES_PER_TICK

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "voyage" / "bench" / "fake_openai_server.py"
TICKS_PER_HOUR = 60 // MINUTES_PER_TICK  # 20: a simulated hour


def outer(latency_ms: float, ticks: int) -> dict:
    return _with_server(["--latency-ms", str(latency_ms)], ["--latency-ms", str(latency_ms), "--ticks", str(ticks)])


def lognormal_outer(latency: str, ticks: int) -> dict:
    return _with_server(["--latency", latency], ["--latency", latency, "--ticks", str(ticks)])


def _with_server(server_args: list[str], inner_args: list[str]) -> dict:
    """The fake server in a process of its own, the inner benchmark in another on a fresh database."""
    server = subprocess.Popen([sys.executable, str(SERVER), *server_args], stdout=subprocess.PIPE, text=True)
    try:
        base_url = server.stdout.readline().strip()
        if not base_url.startswith("http"):
            raise RuntimeError(f"the fake chat-completions server did not start (said {base_url!r})")
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "DATABASE_URL": f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"}
            manage = [sys.executable, str(ROOT / "manage.py")]
            subprocess.run(manage + ["migrate", "-v", "0"], env=env, check=True)
            out = subprocess.run(manage + ["bench", "concurrency", "--inner", *inner_args, "--base-url", base_url],
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


def lognormal_inner(latency: str, ticks: int, base_url: str) -> dict:
    """The simultaneous schedule over ticks 0 to `ticks` of 1912 (seed 1912) against the server's
    lognormal latencies, after a two-tick warm-up run (this process's first queries and connections)."""
    median_ms, _ = parse_latency(latency)
    profile = ModelProfile.objects.create(name="bench lognormal", kind=ModelProfile.OPENAI, base_url=base_url,
                                          model="fake", concurrency=64, timeout_s=120, retries=2)
    scenario = Scenario.objects.get(slug="1912")
    advance(create_run(scenario, seed=1912, schedule=Run.SIMULTANEOUS, target_ticks=2, profile=profile), 2)
    run = create_run(scenario, seed=1912, schedule=Run.SIMULTANEOUS, target_ticks=ticks, profile=profile)
    meter = InFlightMeter(gateway_for(run))
    began = time.perf_counter()
    advance(run, ticks, gateway=meter)
    wall = time.perf_counter() - began
    agents = AgentState.objects.filter(run=run).count()
    return {"bench": "concurrency", "latency": latency, "ticks": ticks, "agents": agents,
            "lock_step_s_per_sim_hour": round(wall / (ticks / TICKS_PER_HOUR), 3),
            "tick_over_latency": round(wall / ticks / (median_ms / 1000), 3), "wall_s": round(wall, 3),
            **meter.figures(wall, agents), "calls": LLMCall.objects.filter(run=run).count(),
            **latencies_met(run, median_ms), "transcript_sha256": transcript_sha256(run)}


def latencies_met(run: Run, median_ms: float) -> dict:
    """The action calls' latencies as the gateway recorded them: their median, and the sum over
    ticks of each tick's slowest (a floor under lock-step's wall time) and its mean over the median."""
    by_tick: dict[int, list[float]] = {}
    for tick, ms in LLMCall.objects.filter(run=run, purpose=ACTION).values_list("tick", "latency_ms"):
        by_tick.setdefault(tick, []).append(ms)
    every = [ms for tick in by_tick.values() for ms in tick]
    slowest = [max(tick) for tick in by_tick.values()]
    return {"latency_p50_ms": round(statistics.median(every), 1) if every else 0.0,
            "slowest_call_over_median": round(statistics.mean(slowest) / median_ms, 3) if slowest else 0.0,
            "lock_step_slowest_calls_s": round(sum(slowest) / 1000, 3)}
