"""A run on the worker is loaded again at every chunk: with chunks of one tick, against a model whose
answers are drawn from the prompt's words (tests/words_server.py), it sends the prompts the
uninterrupted `run_voyage` sends, byte for byte, and ends with its transcript and memory tables —
on SQLite, and on PostgreSQL with the Redis broker (docs/engine.md, "Every prompt from the record")."""
from __future__ import annotations

import pytest

from tests.oracle import assert_same, transcript_through
from tests.prompt_lab import Config, Lab, Made, same_calls, wait_finished
from tests.services import require
from tests.words_server import WordsServer
from voyage.bench.fleet import ScratchDB, Worker, manage_json, postgres_available, redis_available

TICKS = 40
BACKENDS = {"sqlite": dict(kind="sqlite", redis=False), "postgres+redis": dict(kind="postgres", redis=True)}


def services_for(backend: str) -> None:
    if BACKENDS[backend]["kind"] == "postgres":
        require("PostgreSQL at 127.0.0.1:5432", postgres_available())
    if BACKENDS[backend]["redis"]:
        require("Redis at 127.0.0.1:6379", redis_available())


@pytest.mark.parametrize("layout", ["seed", "cached"])
@pytest.mark.parametrize("backend", list(BACKENDS))
def test_the_worker_in_chunks_of_one_tick_sends_run_voyages_prompts(backend, layout, tmp_path):
    services_for(backend)
    config = Config("edelweiss", layout=layout)
    with WordsServer(lognormal=(3, 0.8)) as server, ScratchDB(**BACKENDS[backend]) as db:
        lab = Lab(db, server.base_url)
        reference = Made(lab, lab.start(config, TICKS))
        # No memory job in these ticks: on the worker its rows would show from whenever the memory
        # cluster wrote them (docs/engine.md: not yet kept).
        assert (reference.figures["summaries"], reference.figures["dreams"]) == (0, 0)
        run_id = manage_json(db.env(), "start_voyage", *config.options(), "--ticks", str(TICKS), *lab.model())[0]["run_id"]
        worker = Worker(db.env(VOYAGE_CHUNK_TICKS=1), tmp_path / "worker.log")
        try:
            wait_finished(db, run_id)
        finally:
            worker.kill()
        assert db.run_row(run_id) == (TICKS, "finished", ""), worker.log()[-3000:]
        status = manage_json(db.env(), "voyage_status", "--json", "--run", str(run_id))[0]
        calls = lab.calls(run_id)
        print(f"\n| worker {backend} {layout}, chunks of 1 tick | {reference.figures['transcript_sha256'][:16]} | "
              f"{status['transcript_sha256'][:16]} | {same_calls(calls, reference.calls) or 'yes'} |")
        assert sum(1 for c in calls if c["recalled"]) >= 10, "recall found rows: the state each chunk loads"
        assert_same(transcript_through(db.query, run_id), reference.events)
        assert status["memory_sha256"] == reference.figures["memory_sha256"]
        assert same_calls(calls, reference.calls) is None
        audit = lab.audit(run_id, "--sample", "40")
        print(f"audit of run {run_id}: {audit}")
        assert audit["equal"] == audit["audited"] == 40, audit
