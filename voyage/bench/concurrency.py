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

Then the same ticks out of order (run_ahead 2, voyage/engine/ahead.py): ahead_wall_s, its
ahead_over_lock_step (the lock-step simultaneous wall over it; at a constant latency there is little
to gain, and it must not be below 1 by more than noise) and same_transcript.

With `--latency lognormal:MEDIAN_MS:SIGMA` (lognormal_outer) the ticks run lock-step and then out of
order with `--run-ahead` (2): per run the wall seconds per simulated hour (20 ticks), CPU seconds of
this process and of its thread that ran the schedule (`*_schedule_thread_cpu_s`; the rest is the
gateway's threads and, out of order, the writes and memory jobs done behind), the share of the
agents' time with a call out and of the wall time with none (docs/out-of-order.md);
ahead_over_lock_step, same_transcript, and the out-of-order run's mean and maximum lead. The
answers: the server's (`--policy fake-server`, the default), each after a latency drawn from that
lognormal, seeded by the request's content (the same call waits the same time in every run); or
with `--policy offline` the offline policy's, each after the latency `bench ahead` draws for it
(voyage/bench/latent.py), so that `bench ahead` with the same scenario computes the ceiling of the
very same trace. `--scenario` and `--agents` (a grown copy) choose the world. With `--rounds N`
(lognormal_rounds) each half runs alone in a fresh process, the two alternating, N rounds: each
round's ratios and their medians, for a machine whose speed drifts.

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
from voyage.bench.latent import Latent
from voyage.bench.scale import grown_scenario
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
AHEAD = 2  # the constant-latency benchmark's out-of-order run: the default run_ahead
HALVES = ("lock_step", "ahead")  # the lognormal benchmark's two runs: run_ahead 0, then the option's


def outer(latency_ms: float, ticks: int) -> dict:
    return _with_server(["--latency-ms", str(latency_ms)], ["--latency-ms", str(latency_ms), "--ticks", str(ticks)])


def lognormal_outer(latency: str, ticks: int, run_ahead: int = 2, scenario: str = "1912", agents: int | None = None,
                    policy: str = "fake-server", half: str | None = None) -> dict:
    inner_args = ["--latency", latency, "--ticks", str(ticks), "--run-ahead", str(run_ahead), "--scenario", scenario,
                  "--policy", policy, *(["--agents", str(agents)] if agents else []), *(["--half", half] if half else [])]
    if policy == "fake-server":
        return _with_server(["--latency", latency], inner_args)
    return _fresh_db(inner_args, None)


def lognormal_rounds(latency: str, ticks: int, rounds: int, run_ahead: int = 2, scenario: str = "1912",
                     agents: int | None = None, policy: str = "fake-server") -> dict:
    """`rounds` rounds of the two halves, each half in a fresh process on a fresh database, their order
    alternating (lock-step first in the first round, out of order first in the second, and so on). On
    a shared machine whose speed drifts by the hour, one round's ratio compares two runs taken side by
    side in time, and the median of the rounds' is not one moment's. Prints each half's figures and
    each round's ratios as lists, round by round, and their medians."""
    per_round = []
    for n in range(rounds):
        order = HALVES if n % 2 == 0 else HALVES[::-1]
        per_round.append({half: lognormal_outer(latency, ticks, run_ahead, scenario, agents, policy, half)
                          for half in order})
    first = per_round[0]
    figures = {key: first["lock_step"][key] for key in ("bench", "latency", "scenario", "policy", "ticks", "run_ahead",
                                                        "agents", "calls", "latency_p50_ms")}
    figures["rounds"] = rounds
    figures["first_in_round"] = [next(iter(r)) for r in per_round]  # which half ran first
    for half in HALVES:
        for key in ("wall_s", "cpu_s", "schedule_thread_cpu_s"):
            figures[f"{half}_{key}"] = [r[half][f"{half}_{key}"] for r in per_round]
    figures["cpu_ratios"] = [round(r["ahead"]["ahead_cpu_s"] / r["lock_step"]["lock_step_cpu_s"], 3)
                             for r in per_round]
    figures["cpu_ratio_median"] = round(statistics.median(figures["cpu_ratios"]), 3)
    figures["wall_ratios"] = [round(r["lock_step"]["lock_step_wall_s"] / r["ahead"]["ahead_wall_s"], 3)
                              for r in per_round]
    figures["ahead_over_lock_step"] = round(statistics.median(figures["wall_ratios"]), 3)
    figures["lead_mean"] = [r["ahead"]["lead_mean"] for r in per_round]
    hashes = {r[half]["transcript_sha256"] for r in per_round for half in HALVES}
    figures["same_transcript"] = len(hashes) == 1
    figures["transcript_sha256"] = first["ahead"]["transcript_sha256"]
    figures["cpus"], figures["load_avg"] = os.cpu_count(), [r[half]["load_avg"] for r in per_round for half in HALVES]
    return figures


def _with_server(server_args: list[str], inner_args: list[str]) -> dict:
    """The fake server in a process of its own, the inner benchmark in another on a fresh database."""
    server = subprocess.Popen([sys.executable, str(SERVER), *server_args], stdout=subprocess.PIPE, text=True)
    try:
        base_url = server.stdout.readline().strip()
        if not base_url.startswith("http"):
            raise RuntimeError(f"the fake chat-completions server did not start (said {base_url!r})")
        return _fresh_db(inner_args, base_url)
    finally:
        server.terminate()
        server.wait(timeout=10)


def _fresh_db(inner_args: list[str], base_url: str | None) -> dict:
    """The inner benchmark in a process of its own, on a fresh SQLite database."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"}
        manage = [sys.executable, str(ROOT / "manage.py")]
        subprocess.run(manage + ["migrate", "-v", "0"], env=env, check=True)
        server = ["--base-url", base_url] if base_url else []
        out = subprocess.run(manage + ["bench", "concurrency", "--inner", *inner_args, *server],
                             env=env, check=True, capture_output=True, text=True).stdout
        return json.loads(out.strip().splitlines()[-1])


def inner(latency_ms: float, ticks: int, base_url: str) -> dict:
    profile = ModelProfile.objects.create(name="bench concurrency", kind=ModelProfile.OPENAI, base_url=base_url,
                                          model="fake", concurrency=64, timeout_s=30, retries=2)
    figures = {"bench": "concurrency", "latency_ms": latency_ms, "ticks": ticks}
    calls = {}
    for schedule, run_ahead in ((Run.SEQUENTIAL, 0), (Run.SIMULTANEOUS, 0), (Run.SIMULTANEOUS, AHEAD)):
        began = time.perf_counter()
        run = create_run(Scenario.objects.get(slug="1912"), seed=1912, schedule=schedule, target_ticks=ticks + 2,
                         profile=profile, run_ahead=run_ahead)
        if run_ahead:  # out of order: ticks commit in bursts, so only the whole run's wall time means anything
            advance(run, ticks + 2)
            figures["ahead_wall_s"] = round(time.perf_counter() - began, 3)
            figures["ahead_over_lock_step"] = round(figures["simultaneous_wall_s"] / figures["ahead_wall_s"], 3)
            figures["same_transcript"] = transcript_sha256(run) == lock_step_sha
            break
        stamps = []
        advance(run, ticks + 2, on_tick=lambda tick: stamps.append(time.perf_counter()))
        figures[f"{schedule}_wall_s"] = round(time.perf_counter() - began, 3)
        lock_step_sha = transcript_sha256(run)
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
    figures["calls_per_tick"] = round(calls[Run.SIMULTANEOUS], 1)  # action calls
    figures["speedup"] = round(figures["sequential_tick_s"] / figures["simultaneous_tick_s"], 2)
    figures["tick_over_latency"] = round(figures["simultaneous_tick_s"] / (latency_ms / 1000), 3)
    # run and took are the out-of-order run and the lock-step simultaneous run's ticks: the same ticks
    figures["gateway_floor_over_latency"] = round(gateway_floor(run, max(took)) / (latency_ms / 1000), 3)
    figures["run_ahead"], figures["load_avg"] = AHEAD, round(os.getloadavg()[0], 2)
    return {k: figures[k] for k in ("bench", "latency_ms", "ticks", "calls_per_tick", "sequential_tick_s",
                                    "simultaneous_tick_s", "speedup", "tick_over_latency",
                                    "gateway_floor_over_latency", "sequential_other_ticks",
                                    "simultaneous_other_ticks", "sequential_all_ticks_s", "simultaneous_all_ticks_s",
                                    "sequential_wall_s", "simultaneous_wall_s", "run_ahead", "ahead_wall_s",
                                    "ahead_over_lock_step", "same_transcript", "load_avg")}


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


def lognormal_inner(latency: str, ticks: int, base_url: str | None, run_ahead: int = 2, scenario: str = "1912",
                    agents: int | None = None, policy: str = "fake-server", halves: tuple[str, ...] = HALVES) -> dict:
    """Ticks 0 to `ticks` of the scenario (seed 1912, simultaneous), lock-step and then out of order
    with `run_ahead` (or only one of them: `halves`), after a two-tick warm-up run (this process's first
    queries and connections).
    The answers: the fake server's, after its lognormal latencies (seeded by the request), or with
    `policy` offline the offline policy's, after bench ahead's latencies (voyage/bench/latent.py), with
    memory jobs inline as bench ahead's trace does them, so that its ceiling is this run's."""
    median_ms, sigma = parse_latency(latency)
    world = grown_scenario(scenario, agents)
    profile = None
    if policy == "fake-server":
        profile = ModelProfile.objects.create(name="bench lognormal", kind=ModelProfile.OPENAI, base_url=base_url,
                                              model="fake", concurrency=512, timeout_s=120, retries=2)

    def gateway(run):
        if policy == "fake-server":
            return gateway_for(run)
        return Latent(gateway_for(run), run.seed, median_ms / 1000, sigma)

    warm = create_run(world, seed=1912, schedule=Run.SIMULTANEOUS, target_ticks=2, profile=profile, run_ahead=0)
    advance(warm, 2, gateway=gateway(warm))
    figures = {"bench": "concurrency", "latency": latency, "scenario": scenario, "policy": policy, "ticks": ticks,
               "run_ahead": run_ahead}
    hashes = {}
    for name in halves:
        ahead = 0 if name == "lock_step" else run_ahead
        run = create_run(world, seed=1912, schedule=Run.SIMULTANEOUS, target_ticks=ticks, profile=profile,
                         run_ahead=ahead)
        meter = InFlightMeter(gateway(run))
        began, cpu, own = time.perf_counter(), time.process_time(), time.thread_time()
        advance(run, ticks, gateway=meter, memory_inline=policy != "fake-server")
        wall, cpu, own = time.perf_counter() - began, time.process_time() - cpu, time.thread_time() - own
        agents_n = AgentState.objects.filter(run=run).count()
        figures["agents"] = agents_n
        shares = meter.figures(wall, agents_n)
        figures[f"{name}_s_per_sim_hour"] = round(wall / (ticks / TICKS_PER_HOUR), 3)
        figures[f"{name}_wall_s"] = round(wall, 3)
        figures[f"{name}_cpu_s"] = round(cpu, 3)
        figures[f"{name}_schedule_thread_cpu_s"] = round(own, 3)  # the rest: the gateway's threads, the writes behind
        for key in ("in_flight_share", "no_call_in_flight_share"):
            figures[f"{name}_{key}"] = shares[key]
        if name == "lock_step":
            figures["calls"] = LLMCall.objects.filter(run=run).count()
            figures["tick_over_latency"] = round(wall / ticks / (median_ms / 1000), 3)
            figures.update(latencies_met(run, median_ms))
        else:
            run.refresh_from_db()
            figures["lead_mean"] = round(run.leads["sum"] / run.leads["n"], 3) if run.leads.get("n") else 0.0
            figures["lead_max"] = run.leads.get("max", 0)
        hashes[name] = transcript_sha256(run)
    if len(hashes) == 2:
        figures["ahead_over_lock_step"] = round(figures["lock_step_wall_s"] / figures["ahead_wall_s"], 3)
        figures["same_transcript"] = hashes["lock_step"] == hashes["ahead"]
    figures["transcript_sha256"] = hashes[halves[-1]]
    figures["cpus"], figures["load_avg"] = os.cpu_count(), round(os.getloadavg()[0], 2)
    return figures


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
