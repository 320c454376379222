"""Benchmark: offline runs on real worker processes (`manage.py qcluster`), on whatever
DATABASE_URL / REDIS_URL say, in a scratch database of their own (a temporary SQLite file, or a
fresh database on the PostgreSQL server named), so the bench never touches your runs.

Prints runs, workers, ticks (per run), ticks_per_s (all runs together on all workers),
foreground_ticks_per_s (advance() in-process, as run_voyage does it), one_worker_ticks_per_s (one
worker, one run alone), overhead (foreground ÷ one worker, same run) and scaling (all runs on all
workers ÷ the same runs on one worker), with the machine's cpus and load average (scaling means
little on a machine whose cores are busy with other work)."""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from django.conf import settings
from voyage.bench.fleet import ScratchDB, Worker, manage_json, wait_for
from voyage.engine.runner import advance, create_run
from voyage.models import Run
from voyage.runs import control
from world.models import Scenario

SEED = 1912


def scratch_like_settings():
    """A scratch database of the configured kind (SQLite, or a fresh one on the PostgreSQL server
    DATABASE_URL names), with Redis if REDIS_URL is set: a bench never touches your runs."""
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        return ScratchDB("sqlite", redis=settings.REDIS_URL or False)
    return ScratchDB("postgres", redis=settings.REDIS_URL or False, server_url=os.environ["DATABASE_URL"])


def outer(runs: int, workers: int, ticks: int) -> dict:
    with scratch_like_settings() as db:
        figures = manage_json(db.env(), "bench", "worker", "--inner", "--runs", str(runs), "--workers",
                              str(workers), "--ticks", str(ticks))[-1]
    figures["database"] = db.kind
    figures["broker"] = "redis" if settings.REDIS_URL else "orm"
    return figures


def inner(runs: int, workers: int, ticks: int) -> dict:
    """Runs on the scratch database: the caller (outer) set DATABASE_URL to it."""
    with tempfile.TemporaryDirectory(prefix="voyage-bench-") as tmp:
        logs = Path(tmp)
        # The overhead compares two short measurements: each is the best of two, taken in turn, so
        # that a burst of other work on the machine does not decide the ratio.
        foreground = one_alone = 0.0
        for _ in range(2):
            foreground = max(foreground, ticks / _foreground(ticks))
            one_alone = max(one_alone, ticks / _on_workers(1, 1, ticks, logs))
        one_all = runs * ticks / _on_workers(1, runs, ticks, logs)
        all_workers = runs * ticks / _on_workers(workers, runs, ticks, logs)
    return {
        "bench": "worker",
        "runs": runs,
        "workers": workers,
        "ticks": ticks,
        "ticks_per_s": round(all_workers, 1),
        "foreground_ticks_per_s": round(foreground, 1),
        "one_worker_ticks_per_s": round(one_alone, 1),
        "one_worker_all_runs_ticks_per_s": round(one_all, 1),
        "overhead": round(foreground / one_alone, 3),
        "scaling": round(all_workers / one_all, 3),
        "chunk_ticks": settings.VOYAGE_CHUNK_TICKS,
        # Scaling needs idle cores: on a machine busy with other work these say how much was free.
        "cpus": os.cpu_count(),
        "load_1m_after": round(os.getloadavg()[0], 2),
    }


def _new_run(ticks: int, seed: int):
    return create_run(Scenario.objects.get(slug="1912"), seed=seed, target_ticks=ticks)


def _foreground(ticks: int) -> float:
    run = _new_run(ticks, SEED)
    began = time.perf_counter()
    advance(run, ticks)
    return time.perf_counter() - began


def _on_workers(workers: int, runs: int, ticks: int, logs: Path) -> float:
    """Seconds from queueing `runs` runs to the last one finishing, on one warm cluster of
    `workers` worker processes. (One cluster, not several: a django-q2 cluster's pusher prefetches
    tasks, so separate one-worker clusters on one machine would hoard runs from each other.)"""
    env = {**os.environ, "VOYAGE_WORKERS": str(workers)}
    fleet = [Worker(env, logs / f"w{workers}-r{runs}.log")]
    try:
        for w in fleet:
            wait_for(lambda: " running." in w.log(), 60, what="a worker to start")
        ids = [_new_run(ticks, SEED + n).pk for n in range(runs)]
        began = time.perf_counter()
        for run_id in ids:
            control.start(run_id)

        def all_done() -> bool:
            # One connection for the whole wait (autocommit: each query sees the latest commits);
            # reconnecting at every poll would cost PostgreSQL a backend process each time.
            states = list(Run.objects.filter(pk__in=ids).values_list("state", flat=True))
            if "failed" in states:
                raise RuntimeError(f"a bench run failed: {Run.objects.filter(pk__in=ids, state='failed').first().error}")
            return all(s == "finished" for s in states)

        wait_for(all_done, 600, interval=0.1, what="the bench runs")
        return time.perf_counter() - began
    finally:
        for w in fleet:
            w.kill()
