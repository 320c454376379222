"""`bench concurrency`: one JSON line, and the simultaneous schedule really overlaps the calls; with
`--latency lognormal:...`, the wall time of a simulated hour against latencies that vary."""
import io
import json

import pytest
from django.core.management import CommandError, call_command


def test_bench_concurrency_prints_one_line_of_figures():
    out = io.StringIO()
    call_command("bench", "concurrency", "--latency-ms", "50", "--ticks", "2", stdout=out)
    lines = out.getvalue().strip().splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert {"sequential_tick_s", "simultaneous_tick_s", "speedup", "tick_over_latency"} <= set(figures)
    assert figures["calls_per_tick"] >= 30  # every agent acts each tick against the fake server
    assert figures["sequential_tick_s"] >= figures["calls_per_tick"] * 0.05 * 0.9  # one call after another
    assert figures["speedup"] > 5 and figures["tick_over_latency"] < figures["calls_per_tick"] / 5
    assert figures["same_transcript"] is True  # the same ticks out of order, run_ahead 2
    # the same prompts on the gateway alone: never under one latency, and still all at once
    assert 1 <= figures["gateway_floor_over_latency"] < figures["calls_per_tick"] / 5


def test_bench_concurrency_with_lognormal_latency():
    out = io.StringIO()
    call_command("bench", "concurrency", "--latency", "lognormal:20:0.6", "--ticks", "3", stdout=out)
    lines = out.getvalue().strip().splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert (figures["latency"], figures["ticks"], figures["agents"]) == ("lognormal:20:0.6", 3, 33)
    assert figures["calls"] >= 60
    # a simulated hour is 20 ticks: the wall per hour is the wall of the ticks scaled to 20
    assert figures["lock_step_s_per_sim_hour"] == pytest.approx(figures["lock_step_wall_s"] * 20 / 3, rel=0.01)
    assert figures["ahead_s_per_sim_hour"] == pytest.approx(figures["ahead_wall_s"] * 20 / 3, rel=0.01)
    assert figures["tick_over_latency"] == pytest.approx(figures["lock_step_wall_s"] / 3 / 0.02, rel=0.01)
    assert 0 < figures["lock_step_in_flight_share"] <= 1 and 0 < figures["ahead_in_flight_share"] <= 1
    # the CPU of the thread that ran the schedule, part of the process's
    for half in ("lock_step", "ahead"):
        assert 0 < figures[f"{half}_schedule_thread_cpu_s"] <= figures[f"{half}_cpu_s"]
    # lock-step waits, every tick, for its slowest call: the latencies were really drawn and served
    assert figures["lock_step_wall_s"] >= figures["lock_step_slowest_calls_s"] > 0
    assert figures["slowest_call_over_median"] > 1.5  # the slowest of 33 lognormal draws, far above the median
    # the same ticks out of order (run_ahead 2 by default): the same transcript
    assert figures["same_transcript"] is True and figures["run_ahead"] == 2
    assert figures["ahead_over_lock_step"] == pytest.approx(figures["lock_step_wall_s"] / figures["ahead_wall_s"],
                                                            rel=0.01)


def test_bench_concurrency_in_rounds_alternates_the_halves_in_fresh_processes():
    """Each half in a process of its own, lock-step first in the first round and out of order first in
    the second: each round's ratio is of two runs side by side in time, and the median is printed."""
    out = io.StringIO()
    call_command("bench", "concurrency", "--latency", "lognormal:20:0.6", "--ticks", "2", "--rounds", "2",
                 "--policy", "offline", stdout=out)
    figures = json.loads(out.getvalue().strip().splitlines()[-1])
    assert figures["rounds"] == 2 and figures["first_in_round"] == ["lock_step", "ahead"]
    for half in ("lock_step", "ahead"):
        for key in ("wall_s", "cpu_s", "schedule_thread_cpu_s"):
            assert len(figures[f"{half}_{key}"]) == 2 and all(v > 0 for v in figures[f"{half}_{key}"])
    ratios = [a / b for a, b in zip(figures["ahead_cpu_s"], figures["lock_step_cpu_s"])]
    assert figures["cpu_ratios"] == pytest.approx(ratios, abs=0.002)
    assert figures["cpu_ratio_median"] == pytest.approx(sum(ratios) / 2, abs=0.002)
    walls = [a / b for a, b in zip(figures["lock_step_wall_s"], figures["ahead_wall_s"])]
    assert figures["ahead_over_lock_step"] == pytest.approx(sum(walls) / 2, abs=0.002)
    assert figures["same_transcript"] is True and len(figures["load_avg"]) == 4  # four processes, one transcript
    assert figures["calls"] > 0 and figures["agents"] == 33


@pytest.mark.parametrize("args, words", [
    (["--latency", "lognormal:20:0.6", "--rounds", "0"], "--rounds must be at least 1"),
    (["--latency-ms", "20", "--rounds", "2"], "--rounds goes with --latency"),
    (["--latency", "normal:20:0.6"], "write lognormal:MEDIAN_MS:SIGMA"),
    (["--latency", "lognormal:0:0.6"], "median must be more than 0"),
    (["--latency", "lognormal:20"], "a median in ms and a sigma"),
    (["--latency", "lognormal:20:-1"], "sigma must be between 0 and 3"),
    (["--latency", "lognormal:20:0.6", "--ticks", "0"], "--ticks must be at least 1"),
])
def test_bench_concurrency_refuses_a_bad_latency(args, words):
    with pytest.raises(CommandError, match=words):
        call_command("bench", "concurrency", *args, stdout=io.StringIO())
