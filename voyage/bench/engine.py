"""Benchmark: one offline day of the 1912 scenario on a fresh SQLite database.

Prints wall_s, actions, ms_per_action, overnight_ms (the 160 overnight ticks) and db_mb (the
database file after the day, prompts included)."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from voyage.engine.runner import advance, create_run
from voyage.models import LLMCall
from world.models import Scenario
from world.time import TICKS_PER_DAY, is_overnight

ROOT = Path(__file__).resolve().parents[2]


def outer(days: float, schedule: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite3"
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}"}
        manage = [sys.executable, str(ROOT / "manage.py")]
        subprocess.run(manage + ["migrate", "-v", "0"], env=env, check=True)
        out = subprocess.run(manage + ["bench", "engine", "--inner", "--days", str(days), "--schedule", schedule],
                             env=env, check=True, capture_output=True, text=True).stdout
        figures = json.loads(out.strip().splitlines()[-1])
        with sqlite3.connect(db) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        figures["db_mb"] = round(db.stat().st_size / 1e6, 2)
        return figures


def inner(days: float, schedule: str) -> dict:
    run = create_run(Scenario.objects.get(slug="1912"), seed=1912, schedule=schedule,
                     target_ticks=round(days * TICKS_PER_DAY))
    overnight = 0.0
    last = time.perf_counter()
    began = last

    def on_tick(tick: int) -> None:
        nonlocal overnight, last
        now = time.perf_counter()
        if is_overnight(tick - 1):
            overnight += now - last
        last = now

    advance(run, run.target_ticks, on_tick=on_tick)
    wall = time.perf_counter() - began
    actions = LLMCall.objects.filter(run=run, purpose="action").count()
    return {
        "bench": "engine",
        "days": days,
        "schedule": schedule,
        "wall_s": round(wall, 3),
        "actions": actions,
        "ms_per_action": round(1000 * wall / max(actions, 1), 3),
        "overnight_ms": round(1000 * overnight, 1),
    }
