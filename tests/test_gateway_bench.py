"""`bench concurrency`: one JSON line, and the simultaneous schedule really overlaps the calls."""
import io
import json

from django.core.management import call_command


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
    # the same prompts on the gateway alone: never under one latency, and still all at once
    assert 1 <= figures["gateway_floor_over_latency"] < figures["calls_per_tick"] / 5
