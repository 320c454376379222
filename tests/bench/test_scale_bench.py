"""`bench scale` grows a shipped world to each size, runs it in a scratch database of its own and
prints one JSON line: per size CPU per tick and per action, queries, peak RSS, database size; and
the log-log slopes between sizes."""
from __future__ import annotations

import json
import os
import subprocess

import pytest

from voyage.bench.fleet import MANAGE, ROOT
from voyage.bench.scale import slopes


def test_slopes_are_log_log_between_consecutive_sizes_and_end_to_end():
    per_size = {"32": {"cpu_ms_per_tick": 10.0}, "128": {"cpu_ms_per_tick": 40.0},
                "512": {"cpu_ms_per_tick": 320.0}}
    assert slopes(per_size) == {"32-128": 1.0, "128-512": 1.5, "32-512": 1.25}


@pytest.mark.parametrize("sizes", ["abc", "0,8"])
def test_bad_sizes_are_refused(sizes):
    done = subprocess.run(MANAGE + ["bench", "scale", "--sizes", sizes], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode != 0 and "--sizes" in done.stderr


def test_bench_scale_prints_one_json_line_of_figures(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["VOYAGE_VAR_DIR"] = str(tmp_path)  # the bench makes its own scratch databases; nothing lands here
    done = subprocess.run(MANAGE + ["bench", "scale", "--sizes", "8,16", "--ticks", "3"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert (figures["scenario"], figures["database"], figures["ticks"]) == ("edelweiss", "sqlite", 3)
    assert set(figures["sizes"]) == {"8", "16"} and set(figures["slopes"]) == {"8-16"}
    for n, size in figures["sizes"].items():
        assert size["agents"] == int(n) and size["actions"] > 0
        for key in ("cpu_ms_per_tick", "cpu_ms_per_action", "queries_per_tick", "peak_rss_mb", "db_mb"):
            assert size[key] > 0, (n, key)
