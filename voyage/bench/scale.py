"""Benchmark: the engine's cost per agent as the world grows (issue 21).

For each size, on a scratch database of its own (voyage.bench.fleet.ScratchDB): grow the scenario to
N people and import it as a file (`scenario grow`, `scenario import`, each a process of its own), then
in a process of its own (so its peak RSS is the run's, not the growing's: growing and importing 2,048
people peaks near 350 MB) run ticks 0-59 of its first day, simultaneous, offline model, memory jobs
inline as the batch runner does them. CPU time (process time, this process only: the database server's is not in
it), never wall time: the machine is shared.

Prints, per size: cpu_ms_per_tick, cpu_ms_per_action, queries_per_tick, peak_rss_mb, db_mb; and
the log-log slopes of CPU per tick between consecutive sizes and from the first to the last.
"""
from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import time
from voyage.bench.fleet import MANAGE, POSTGRES_URL, ROOT, ScratchDB, manage
from voyage.engine.runner import advance, create_run
from voyage.models import LLMCall, Run
from world.models import Scenario
from world.scenarios.files import data_yaml, import_yaml, scenario_data
from world.scenarios.grow import grow

SIZES = (32, 128, 512, 2048)
TICKS = 60  # daytime: the first day's ticks 0-59 (tick 0 wakes everyone, tick 1 brings spouses together)


# --- outer: this process ----------------------------------------------------------------------
def outer(scenario: str, sizes=SIZES, ticks: int = TICKS, database: str = "sqlite") -> dict:
    per_size = {}
    for n in sizes:
        with ScratchDB(database, server_url=POSTGRES_URL) as db:
            grown = db.dir / f"{scenario}-{n}.yaml"
            manage(db.env(), "scenario", "grow", scenario, "--agents", str(n), "-o", str(grown), timeout=1800)
            manage(db.env(), "scenario", "import", str(grown), timeout=1800)
            done = subprocess.run(MANAGE + ["bench", "scale", "--inner", "--scenario", scenario, "--agents", str(n),
                                            "--ticks", str(ticks)], env=db.env(), cwd=ROOT, capture_output=True,
                                  text=True, timeout=3600)
            if done.returncode != 0:
                raise RuntimeError(f"bench scale at {n} agents failed:\n{done.stderr[-4000:]}")
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            figures["db_mb"] = database_mb(db)
        per_size[str(n)] = figures
    return {"bench": "scale", "scenario": scenario, "database": database, "ticks": ticks,
            "schedule": "simultaneous", "sizes": per_size, "slopes": slopes(per_size),
            "cpus": os.cpu_count(), "load_1m_after": round(os.getloadavg()[0], 2)}


def database_mb(db) -> float:
    if db.kind == "sqlite":
        db.query("PRAGMA wal_checkpoint(TRUNCATE)")
        return round(os.path.getsize(db.url.removeprefix("sqlite:///")) / 1e6, 2)
    return round(db.query("SELECT pg_database_size(current_database())")[0][0] / 1e6, 2)


def slopes(per_size: dict) -> dict:
    """d log(CPU per tick) / d log(agents) between consecutive sizes, and from the first to the last."""
    sizes = sorted(per_size, key=int)
    pairs = list(zip(sizes, sizes[1:])) + ([(sizes[0], sizes[-1])] if len(sizes) > 2 else [])
    return {f"{a}-{b}": round(math.log(per_size[b]["cpu_ms_per_tick"] / per_size[a]["cpu_ms_per_tick"])
                             / math.log(int(b) / int(a)), 3) for a, b in pairs}


# --- inner: one size, on the scratch database -------------------------------------------------
def inner(scenario: str, agents: int, ticks: int) -> dict:
    from django.db import connection

    # The outer process imported the grown world (`scenario import`); run on its own, it grows it here.
    grown = Scenario.objects.filter(slug=grown_slug(scenario, agents)).first() or grown_scenario(scenario, agents)
    run = create_run(grown, seed=1912, schedule=Run.SIMULTANEOUS, target_ticks=ticks)
    queries = 0

    def count(execute, sql, params, many, context):
        nonlocal queries
        queries += 1
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        began = time.process_time()
        advance(run, ticks, memory_inline=True)
        cpu_ms = 1000 * (time.process_time() - began)
    actions = LLMCall.objects.filter(run=run, purpose="action").count()
    return {
        "agents": agents,
        "rooms": grown.rooms.count(),
        "actions": actions,
        "cpu_ms_per_tick": round(cpu_ms / ticks, 2),
        "cpu_ms_per_action": round(cpu_ms / max(actions, 1), 3),
        "queries_per_tick": round(queries / ticks, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def grown_slug(slug: str, agents: int) -> str:
    """The slug `scenario grow` gives a world grown to `agents` people (world/scenarios/grow.py)."""
    return f"{slug}-grown-{agents}"[:50]


def grown_scenario(slug: str, agents: int | None = None) -> Scenario:
    """The shipped scenario, or with `agents` a copy of it grown to that many people (`scenario grow`),
    imported as a file."""
    scenario = Scenario.objects.get(slug=slug)
    if not agents:
        return scenario
    return import_yaml(data_yaml(grow(scenario_data(scenario), agents)))
