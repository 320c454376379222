"""Benchmark: a run's fixture. An offline run of N days (memory jobs inline) on a fresh SQLite
database is exported with `export_run`, then loaded with plain `loaddata` into another fresh one.

Prints export_s and import_s (wall time of each command, process start included), fixture_mb and
peak_rss_mb (the larger of the two processes' peak resident memory)."""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from voyage.bench.fleet import MANAGE, ROOT, ScratchDB, manage, manage_json
from world.time import TICKS_PER_DAY


def timed(env: dict, *args: str) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one manage.py command."""
    began = time.perf_counter()
    proc = subprocess.Popen(MANAGE + list(args), env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - began
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{proc.stderr.read().decode()[-4000:]}")
    return wall, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def outer(days: float) -> dict:
    with ScratchDB("sqlite") as source, ScratchDB("sqlite") as target:
        fixture = Path(source.dir) / "run.jsonl.gz"
        env = source.env(VOYAGE_Q_SYNC=1)
        run = manage_json(env, "run_voyage", "--ticks", str(round(days * TICKS_PER_DAY)))[-1]
        export_s, export_rss = timed(env, "export_run", str(run["run_id"]), "-o", str(fixture))
        import_s, import_rss = timed(target.env(), "loaddata", str(fixture))
        loaded = manage(target.env(), "voyage_status")
        if str(run["ticks"]) not in loaded:
            raise RuntimeError(f"the loaded run is not there:\n{loaded}")
        return {"bench": "export", "days": days,
                "export_s": round(export_s, 2), "import_s": round(import_s, 2),
                "fixture_mb": round(fixture.stat().st_size / 1e6, 2),
                "peak_rss_mb": round(max(export_rss, import_rss), 1)}
