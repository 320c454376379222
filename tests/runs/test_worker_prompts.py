"""A run on the worker is loaded again at every chunk, and its memory jobs are done by a memory worker
whenever it gets to them: with chunks of one tick, against a model whose answers are drawn from the
prompt's words (tests/words_server.py), it sends the prompts the uninterrupted `run_voyage` sends,
byte for byte, and ends with its transcript and memory tables — on SQLite, and on PostgreSQL with the
Redis broker. So does `run_voyage --memory-worker` with no memory worker running at all: a job's
summaries, eras and dreams show SHOW_LAG ticks after it was asked, done by the engine itself if no
worker has (docs/engine.md, "Every prompt from the record")."""
from __future__ import annotations

import json

import pytest

from memories.context import DREAM_HEADER, SUMMARIES_HEADER
from tests.oracle import assert_same, transcript_through
from tests.prompt_lab import Config, Lab, Made, same_calls, wait_finished
from tests.services import require
from tests.words_server import WordsServer
from voyage.bench.fleet import ScratchDB, Worker, manage_json, postgres_available, redis_available, wait_for

TICKS = 40
# Memory thresholds low enough that 40 ticks of Edelweiss cross its first summaries (from about tick
# 17), eras and dreams, in both layouts — the defaults bring the first summary at about tick 76.
MEMORY = dict(hot_memory_limit=10, compaction_memory_count=10, fatigue_limit=12)
BACKENDS = {"sqlite": dict(kind="sqlite", redis=False), "postgres+redis": dict(kind="postgres", redis=True)}

CATCH_UP = """
import sys
from memories.attempts import catch_up_run
catch_up_run(int(sys.argv[-1]))
"""


def services_for(backend: str) -> None:
    if BACKENDS[backend]["kind"] == "postgres":
        require("PostgreSQL at 127.0.0.1:5432", postgres_available())
    if BACKENDS[backend]["redis"]:
        require("Redis at 127.0.0.1:6379", redis_available())


def reference_of(lab: Lab, config: Config) -> Made:
    """The uninterrupted run_voyage, its memory jobs done at each commit; its prompts show what they wrote."""
    made = Made(lab, lab.voyage("--run", str(lab.create(config, TICKS, **MEMORY)), *lab.model()))
    shown = [json.dumps(c["prompt"]) for c in made.calls if c["purpose"] == "action"]
    assert made.figures["summaries"] and any(SUMMARIES_HEADER in p for p in shown[len(shown) // 2:])
    assert any(DREAM_HEADER in p or "You dream:" in p for p in shown), "a dream shows"
    return made


def assert_same_as(lab: Lab, run_id: int, reference: Made, what: str) -> None:
    status = manage_json(lab.db.env(), "voyage_status", "--json", "--run", str(run_id))[0]
    calls = lab.calls(run_id)
    print(f"\n| {what} | {reference.figures['transcript_sha256'][:16]} | {status['transcript_sha256'][:16]} | "
          f"{same_calls(calls, reference.calls) or 'yes'} |")
    assert status["jobs_pending"] == 0
    assert_same(transcript_through(lab.db.query, run_id), reference.events)
    assert status["memory_sha256"] == reference.figures["memory_sha256"]
    assert same_calls(calls, reference.calls) is None
    audit = lab.audit(run_id, "--sample", "40")
    print(f"audit of run {run_id}: {audit}")
    assert audit["equal"] == audit["audited"] == 40, audit


@pytest.mark.parametrize("layout", ["seed", "cached"])
@pytest.mark.parametrize("backend", list(BACKENDS))
def test_the_worker_in_chunks_of_one_tick_sends_run_voyages_prompts(backend, layout, tmp_path):
    services_for(backend)
    config = Config("edelweiss", layout=layout)
    with WordsServer(lognormal=(3, 0.8)) as server, ScratchDB(**BACKENDS[backend]) as db:
        lab = Lab(db, server.base_url)
        reference = reference_of(lab, config)
        run_id = manage_json(db.env(), "start_voyage", "--run", str(lab.create(config, TICKS, **MEMORY)),
                             *lab.model())[0]["run_id"]
        env = db.env(VOYAGE_CHUNK_TICKS=1)
        worker = Worker(env, tmp_path / "worker.log")
        memory = Worker(env, tmp_path / "memory.log", cluster="memory")  # the jobs, as it gets to them
        try:
            wait_finished(db, run_id)
            assert db.run_row(run_id) == (TICKS, "finished", ""), worker.log()[-3000:]
            wait_for(lambda: not db.query("SELECT COUNT(*) FROM memory_jobs_pending WHERE run_id = %s", (run_id,))[0][0],
                     300, interval=0.2, what="the memory worker to do the jobs the run's last ticks asked for")
        finally:
            worker.kill()
            memory.kill()
        calls = lab.calls(run_id)
        assert sum(1 for c in calls if c["recalled"]) >= 10, "recall found rows: the state each chunk loads"
        assert_same_as(lab, run_id, reference, f"worker {backend} {layout}, chunks of 1 tick, a memory worker")


@pytest.mark.parametrize("run_ahead", [0, 3])
def test_run_voyage_whose_memory_worker_never_comes_sends_run_voyages_prompts(run_ahead):
    """`--memory-worker` queues every job for a memory worker that is not running: the engine does each
    itself just before the first prompt that shows its rows — in lock-step and out of order."""
    config = Config("edelweiss", layout="seed", run_ahead=run_ahead)
    with WordsServer(lognormal=(3, 0.8)) as server, ScratchDB("sqlite") as db:
        lab = Lab(db, server.base_url)
        reference = reference_of(lab, Config("edelweiss", layout="seed"))
        figures = lab.voyage("--run", str(lab.create(config, TICKS, **MEMORY)), "--memory-worker", *lab.model())
        run_id = figures["run_id"]
        owed = db.query("SELECT MIN(tick), COUNT(*) FROM memory_jobs_pending WHERE run_id = %s", (run_id,))[0]
        assert owed[1] and owed[0] > TICKS - 1 - 9, "only jobs no prompt has shown yet are owed (SHOW_LAG 9)"
        assert figures["summaries"] and figures["dreams"], "the engine did the others"
        if run_ahead:
            assert figures["lead_max"] >= 1, "out of order, some agent ran ahead"
        lab.script(CATCH_UP, run_id)  # what the memory worker would have done with the rest
        assert_same_as(lab, run_id, reference, f"run_voyage --memory-worker, none running, run_ahead {run_ahead}")
