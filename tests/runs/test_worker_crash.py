"""Crash safety: a real `manage.py qcluster` runs a voyage; the test SIGKILLs the whole cluster at
random moments and starts it again. The run must end exactly as an uninterrupted run with the same
seed ends: same transcript, no duplicated and no missing rows. On SQLite, on PostgreSQL, and on
PostgreSQL with the Redis broker (which, unlike the ORM broker, loses a task that was in flight)."""
from __future__ import annotations

import os
import random
import time

import pytest

from tests.oracle import assert_same, reference_with_events, transcript_through
from tests.services import require
from voyage.bench.fleet import ScratchDB, Worker, manage_json, postgres_available, redis_available, wait_for

TICKS = 150
SEED = 7
KILLS = 4
BACKENDS = {
    "sqlite": dict(kind="sqlite", redis=False),
    "postgres": dict(kind="postgres", redis=False),
    "postgres+redis": dict(kind="postgres", redis=True),
}


def services_for(backend: str) -> None:
    spec = BACKENDS[backend]
    if spec["kind"] == "postgres":
        require("PostgreSQL at 127.0.0.1:5432", postgres_available())
    if spec["redis"]:
        require("Redis at 127.0.0.1:6379", redis_available())


def event_log_shape(db: ScratchDB, run_id: int) -> tuple[int, int, int, int]:
    return db.query("SELECT COUNT(*), COUNT(DISTINCT seq), MIN(seq), MAX(seq) FROM event_log WHERE run_id = %s",
                    (run_id,))[0]


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_run_survives_sigkill_of_the_worker(backend, tmp_path):
    services_for(backend)
    expected = reference_with_events(TICKS, SEED)
    rng_seed = int(os.environ.get("VOYAGE_CRASH_SEED", random.randrange(1 << 30)))
    rng = random.Random(rng_seed)
    with ScratchDB(**BACKENDS[backend]) as db:
        # Small chunks: many hand-offs between links of the chain for the kills to land on.
        env = db.env(VOYAGE_CHUNK_TICKS=15, VOYAGE_LOG_LEVEL="INFO")
        run_id = manage_json(env, "start_voyage", "--ticks", str(TICKS), "--seed", str(SEED))[0]["run_id"]
        kills = []
        for n in range(KILLS):
            worker = Worker(env, tmp_path / f"worker-{n}.log")
            start_tick = db.run_row(run_id)[0]
            try:
                if n == 0:  # blind: anywhere from the cluster starting up to its first chunks
                    time.sleep(rng.uniform(0.3, 2.0))
                else:  # let the restarted worker make progress, then kill it at a random moment after
                    wait_for(lambda: db.run_row(run_id)[0] > start_tick, 60, what=f"progress after restart {n}")
                    time.sleep(rng.uniform(0.0, 0.4))
            finally:
                worker.kill()
            kills.append(db.run_row(run_id)[0])
        worker = Worker(env, tmp_path / "worker-final.log")
        try:
            wait_for(lambda: db.run_row(run_id)[1] in ("finished", "failed"), 120, what="the run to finish")
        finally:
            worker.kill()

        context = f"backend={backend} VOYAGE_CRASH_SEED={rng_seed} killed at ticks {kills}"
        tick, state, error = db.run_row(run_id)
        assert (tick, state, error) == (TICKS, "finished", ""), context
        assert sum(1 for k in kills if k < TICKS) >= 2, f"the kills must land mid-run: {context}"
        assert_same(transcript_through(db.query, run_id), expected["events"], f"transcripts ({context})")
        count, distinct, first, last = event_log_shape(db, run_id)
        assert (count, distinct, first, last) == (count, count, 0, count - 1), f"duplicate or gap in seq: {context}"
        memories = db.query("SELECT COUNT(*) FROM memory_stream WHERE run_id = %s", (run_id,))[0][0]
        # a memory job's calls are saved as they are made, abandoned until its attempt commits: a
        # worker killed mid-job (the engine does a job its next prompts show) leaves them, paid for
        # but built on by nothing; an action call is never one of them
        calls = db.query("SELECT COUNT(*) FROM llm_calls WHERE run_id = %s AND NOT abandoned", (run_id,))[0][0]
        kept = {p for (p,) in db.query("SELECT DISTINCT purpose FROM llm_calls WHERE run_id = %s AND abandoned", (run_id,))}
        assert kept <= {"compaction", "era", "dream"}, context
        assert (memories, calls) == (expected["memories"], expected["llm_calls"]), context
