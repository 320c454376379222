"""Memory work survives a crash as if none happened: a run on real worker processes (a tick cluster
and a memory cluster, as `make worker` starts them), both SIGKILLed at random moments and started
again, ends with the same summaries, eras, dreams, diary and trust history — by content — as the
batch runner's run of the same seed, the same model calls (those of killed attempts aside), and no
memory job left pending within two minutes of finishing."""
from __future__ import annotations

import os
import random
import time

import pytest

from tests.oracle import assert_same, transcript_through
from tests.services import require
from voyage.bench.fleet import ScratchDB, Worker, manage_json, postgres_available, redis_available, wait_for

# edelweiss's 8 agents past nightfall (tick 319): with a small hot window and compaction every 20
# rows each agent writes a dozen summaries and folds eras; naps and the night bring dreams.
RUN = ["--scenario", "edelweiss", "--ticks", "330", "--seed", "5"]
SMALL_MEMORY = "UPDATE voyage_run SET hot_memory_limit = 10, compaction_memory_count = 20 WHERE id = %s"
KILLS = 5  # alternately the memory cluster and (every other time) the tick cluster too
BACKENDS = {
    "sqlite": dict(kind="sqlite", redis=False),
    "postgres+redis": dict(kind="postgres", redis=True),
}
_batch: dict = {}


def batch_reference() -> dict:
    """run_voyage's closing line for the same run, its memory jobs done in the foreground, and (under
    "events") its transcript as tests/oracle reads it."""
    if not _batch:
        with ScratchDB("sqlite") as db:
            _batch.update(manage_json(db.env(), "run_voyage", "--run", str(configured(db)))[-1])
            _batch["events"] = transcript_through(db.query, _batch["run_id"])
    return _batch


def configured(db: ScratchDB) -> int:
    """The run, queued (no worker runs yet) and given its small memory limits."""
    run_id = manage_json(db.env(), "start_voyage", *RUN)[0]["run_id"]
    db.execute(SMALL_MEMORY, (run_id,))
    return run_id


def status(env: dict, run_id: int) -> dict:
    return manage_json(env, "voyage_status", "--json", "--run", str(run_id))[0]


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_memory_after_kills_of_either_cluster_is_the_batch_runners(backend, tmp_path):
    spec = BACKENDS[backend]
    if spec["kind"] == "postgres":
        require("PostgreSQL at 127.0.0.1:5432", postgres_available())
        require("Redis at 127.0.0.1:6379", redis_available())
    expected = batch_reference()
    assert expected["summaries"] >= 50 and expected["eras"] > 0 and expected["dreams"] > 0
    rng_seed = int(os.environ.get("VOYAGE_CRASH_SEED", random.randrange(1 << 30)))
    rng = random.Random(rng_seed)
    with ScratchDB(**spec) as db:
        env = db.env(VOYAGE_CHUNK_TICKS=15)
        run_id = configured(db)
        logs = iter(tmp_path / f"{n}.log" for n in range(100))
        ticks, memory = Worker(env, next(logs)), Worker(env, next(logs), cluster="memory")
        kills = []
        try:
            for n in range(KILLS):
                start = db.run_row(run_id)[0]
                wait_for(lambda: db.run_row(run_id)[0] > start or db.run_row(run_id)[1] == "finished", 60,
                         what="progress")
                time.sleep(rng.uniform(0.2, 1.5))
                memory.kill()
                if n % 2:
                    ticks.kill()
                    ticks = Worker(env, next(logs))
                kills.append((db.run_row(run_id)[0], "both" if n % 2 else "memory"))
                time.sleep(rng.uniform(0.0, 1.0))  # ticks go on while the memory cluster is down
                memory = Worker(env, next(logs), cluster="memory")
            wait_for(lambda: db.run_row(run_id)[1] in ("finished", "failed"), 180, what="the run to finish")
            finished = time.monotonic()
            wait_for(lambda: status(env, run_id)["jobs_pending"] == 0, 120, interval=2,
                     what="memory jobs pending after the run finished")
            drained_s = time.monotonic() - finished
        finally:
            ticks.kill()
            memory.kill()
        context = f"backend={backend} VOYAGE_CRASH_SEED={rng_seed} kills at {kills} drained in {drained_s:.0f} s"
        assert db.run_row(run_id) == (330, "finished", ""), context
        assert sum(1 for tick, _ in kills if tick < 330) >= 2, f"the kills must land mid-run: {context}"
        got = status(env, run_id)
        assert_same(transcript_through(db.query, run_id), expected["events"], f"transcripts ({context})")
        # memory by hash: tests/oracle reads memory tables only through this process's ORM
        assert got["memory_sha256"] == expected["memory_sha256"], context
        assert got["llm_calls"] == expected["llm_calls"], context
