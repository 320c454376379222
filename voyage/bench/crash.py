"""Benchmark (issue 29's table): what a run remembers after its worker clusters were SIGKILLed.

One offline run of the same seed three ways, each in a scratch database like the configured one
(SQLite, or PostgreSQL with Redis if DATABASE_URL / REDIS_URL say so): the batch runner
(`run_voyage`), the worker uninterrupted (a tick cluster and a memory cluster, as `make worker`
starts them), and the worker with the memory cluster SIGKILLed `--kills` times and the tick
cluster every other time, at random moments spread over the daytime ticks, each started again at once. Prints, per way:
summaries (level 0 + eras), dreams, model calls (those of killed attempts apart), memory jobs
pending when the run finished and how long they took to drain, and whether the transcript and the
memory tables (memories.digest) equal the batch runner's."""
from __future__ import annotations

import random
import time

from voyage.bench.fleet import Worker, manage_json, wait_for
from voyage.bench.worker import scratch_like_settings
from world.time import is_overnight


def _figures(env, run_id: int, expected: dict | None) -> dict:
    status = manage_json(env, "voyage_status", "--json", "--run", str(run_id))[0]
    memory = status["memory_sha256"]
    out = {"summaries": int(memory["summaries"].split(":")[0]), "dreams": int(memory["dreams"].split(":")[0]),
           "llm_calls": status["llm_calls"], "llm_calls_abandoned": status["llm_calls_abandoned"]}
    if expected is not None:
        out["same_transcript"] = status["transcript_sha256"] == expected["transcript_sha256"]
        out["same_memory"] = memory == expected["memory_sha256"]
    return out


def _on_workers(db, run_args: list[str], kills: int, rng: random.Random, expected: dict, log_dir) -> dict:
    env = db.env(VOYAGE_CHUNK_TICKS=15)
    run_id = manage_json(env, "start_voyage", *run_args)[0]["run_id"]
    logs = iter(log_dir / f"{run_id}-{n}.log" for n in range(1000))
    ticks, memory = Worker(env, next(logs)), Worker(env, next(logs), cluster="memory")
    pending = lambda: db.query("SELECT COUNT(*) FROM memory_jobs_pending WHERE run_id = %s", (run_id,))[0][0]  # noqa: E731
    killed_at = []
    target = db.query("SELECT target_ticks FROM voyage_run WHERE id = %s", (run_id,))[0][0]
    try:
        # Spread over the daytime ticks (the night's spin by in seconds, and a kill aimed there would
        # often find the run finished): the n-th after (n + 1) / (kills + 1) of them.
        daytime = [t for t in range(target) if not is_overnight(t)]
        for n in range(kills):
            wait_for(lambda: db.run_row(run_id)[0] >= daytime[len(daytime) * (n + 1) // (kills + 1)] or
                     db.run_row(run_id)[1] == "finished", 3600, interval=0.2, what="progress")
            if db.run_row(run_id)[1] == "finished":
                break
            time.sleep(rng.uniform(0.0, 2.0))
            memory.kill()
            if n % 2:
                ticks.kill()
                ticks = Worker(env, next(logs))
            killed_at.append(db.run_row(run_id)[0])
            time.sleep(rng.uniform(0.0, 2.0))
            memory = Worker(env, next(logs), cluster="memory")
        wait_for(lambda: db.run_row(run_id)[1] in ("finished", "failed"), 3600, interval=0.5, what="the run")
        owed, finished = pending(), time.monotonic()
        wait_for(lambda: pending() == 0, 900, interval=1, what="its memory jobs")
        drained_s = round(time.monotonic() - finished, 1)
    finally:
        ticks.kill()
        memory.kill()
    return {**_figures(env, run_id, expected), "pending_at_finish": owed, "drained_s": drained_s,
            "killed_at_ticks": killed_at}


def outer(days: float, kills: int, seed: int = 1912) -> dict:
    import os
    import tempfile
    from pathlib import Path

    run_args = ["--days", str(days), "--seed", str(seed)]
    rng = random.Random(int(os.environ.get("VOYAGE_CRASH_SEED", seed)))
    log_dir = Path(tempfile.mkdtemp(prefix="voyage-bench-crash-"))
    with scratch_like_settings() as db:
        batch = manage_json(db.env(), "run_voyage", *run_args)[-1]
        figures = {"database": db.kind, "broker": "redis" if db.redis else "orm", "days": days,
                   "batch": {**_figures(db.env(), batch["run_id"], None), "pending_at_finish": batch["jobs_pending"]}}
        figures["worker"] = _on_workers(db, run_args, 0, rng, batch, log_dir)
        figures["worker_killed"] = _on_workers(db, run_args, kills, rng, batch, log_dir)
    figures["load_avg"] = os.getloadavg()[0]
    return figures
