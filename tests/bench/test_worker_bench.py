"""`bench worker` runs on real worker processes and prints one JSON line of figures."""
from __future__ import annotations

import json
import os
import subprocess

from voyage.bench.fleet import MANAGE, ROOT


def test_bench_worker_prints_one_json_line_of_figures(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["VOYAGE_VAR_DIR"] = str(tmp_path)  # the bench makes its own scratch database; nothing lands here
    done = subprocess.run(MANAGE + ["bench", "worker", "--runs", "2", "--workers", "2", "--ticks", "5"], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert (figures["runs"], figures["workers"], figures["ticks"], figures["database"]) == (2, 2, 5, "sqlite")
    for key in ("ticks_per_s", "overhead", "scaling", "foreground_ticks_per_s", "one_worker_ticks_per_s"):
        assert figures[key] > 0, key
