"""A run exported as a fixture (`export_run`) and loaded with plain `loaddata` into another database
that already holds two runs of the same scenario — SQLite and PostgreSQL, real processes configured
by DATABASE_URL. The scenario is not duplicated, every table grows by exactly the run's rows, the
transcript is the same, exporting it again gives the same fixture, continuing it goes exactly as
continuing the original, and replaying it gives the same transcript. Damaged fixtures are refused
whole."""
from __future__ import annotations

import gzip
import json

import pytest

from tests.oracle import assert_same, transcript_through
from tests.services import require
from voyage.bench.fleet import ScratchDB, manage, manage_json, postgres_available

DAY = 480
SCENARIO = ["--scenario", "edelweiss"]  # a whole day with its night, on the small second world: 8 agents
TABLES = ["world_scenario", "world_room", "world_exit", "world_persona", "world_soulentry", "world_prop",
          "world_rung", "voyage_modelprofile", "voyage_run", "agent_state", "memory_stream", "memory_summaries",
          "memory_dreams", "memory_diary", "trust_ledger", "trust_history", "event_log", "llm_calls"]
SCENARIO_TABLES = TABLES[:7]

pytestmark = pytest.mark.slow


def counts(db: ScratchDB) -> dict[str, int]:
    return {t: db.query(f"SELECT COUNT(*) FROM {t}")[0][0] for t in TABLES}


def status(env: dict, run_id: int) -> dict:
    return manage_json(env, "voyage_status", "--json", "--run", str(run_id))[0]


def lines(path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A one-day offline run with its memory jobs inline (summaries, eras, dreams exist), exported."""
    with ScratchDB("sqlite") as db:
        env = db.env(VOYAGE_Q_SYNC=1)
        run = manage_json(env, "run_voyage", *SCENARIO, "--ticks", str(DAY))[-1]
        fixture = tmp_path_factory.mktemp("fixture") / "run.jsonl.gz"
        manage(env, "export_run", str(run["run_id"]), "-o", str(fixture))
        uuid = db.query("SELECT uuid FROM voyage_run WHERE id = %s", (run["run_id"],))[0][0]
        rows, events = counts(db), transcript_through(db.query, run["run_id"])
        # The original, continued 40 ticks: what continuing the loaded copy must give.
        continued = manage_json(env, "run_voyage", "--run", str(run["run_id"]), "--ticks", str(DAY + 40))[-1]
        yield {"run": run, "fixture": fixture, "uuid": str(uuid), "counts": rows, "continued": continued,
               "events": events, "events_continued": transcript_through(db.query, run["run_id"])}


def target_with_two_runs(kind: str) -> ScratchDB:
    db = ScratchDB(kind).__enter__()
    for seed in (5, 6):
        manage_json(db.env(), "run_voyage", *SCENARIO, "--ticks", "30", "--seed", str(seed))
    return db


def loaded_run_id(db: ScratchDB, uuid: str) -> int:
    return db.query("SELECT id FROM voyage_run WHERE uuid = %s", (uuid.replace("-", "") if db.kind == "sqlite"
                                                                    else uuid,))[0][0]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_round_trip_into_a_database_with_other_runs(kind, source, tmp_path):
    if kind == "postgres":
        require("PostgreSQL at 127.0.0.1:5432", postgres_available())
    assert source["counts"]["memory_summaries"] > 0 and source["counts"]["memory_dreams"] > 0
    assert any("evidence" in line and '"evidence": [-' in line for line in lines(source["fixture"]))
    # Each agent's recall state names its rows by number too: continuing the copy recalls the same rows.
    assert any('"model": "world.agentstate"' in line and '"ids": [-' in line for line in lines(source["fixture"]))
    db = target_with_two_runs(kind)
    try:
        env = db.env(VOYAGE_Q_SYNC=1)
        before = counts(db)
        out = manage(env, "loaddata", str(source["fixture"]))
        assert "Installed" in out
        after = counts(db)
        for table in TABLES:
            if table in SCENARIO_TABLES:
                assert after[table] == before[table], f"{table}: the scenario was copied, not matched"
            else:
                assert after[table] - before[table] == source["counts"][table], table
        run_id = loaded_run_id(db, source["uuid"])
        assert_same(transcript_through(db.query, run_id), source["events"])
        # the hash too: the same figure whichever database computes it
        assert status(env, run_id)["transcript_sha256"] == source["run"]["transcript_sha256"]

        # Exported again from here, it is the same fixture: every row, memory-row references included
        # (compared as JSON: PostgreSQL's jsonb keeps an event's data keys in its own order).
        again = tmp_path / "again.jsonl.gz"
        manage(env, "export_run", str(run_id), "-o", str(again))
        assert [json.loads(x) for x in lines(again)] == [json.loads(x) for x in lines(source["fixture"])]

        # Replayed from its imported calls: the same transcript.
        replay = manage_json(env, "run_voyage", "--replay", str(run_id))[-1]
        assert_same(transcript_through(db.query, replay["run_id"]), source["events"])
        assert replay["transcript_sha256"] == source["run"]["transcript_sha256"]

        # Continued: it advances, exactly as the original does when continued the same way.
        here = manage_json(env, "run_voyage", "--run", str(run_id), "--ticks", str(DAY + 40))[-1]
        there = source["continued"]
        assert here["ticks"] == DAY + 40
        assert_same(transcript_through(db.query, run_id), source["events_continued"])
        assert here["transcript_sha256"] == there["transcript_sha256"]
        assert (here["memories"], here["llm_calls"]) == (there["memories"], there["llm_calls"])
    finally:
        db.__exit__(None, None, None)


def damaged(fixture, tmp_path, how: str):
    data = lines(fixture)
    path = tmp_path / f"{how}.jsonl.gz"
    if how == "truncated":
        raw = gzip.compress("\n".join(data).encode())
        path.write_bytes(raw[: len(raw) // 2])
        return path, "Compressed file ended"
    # One event, edited to name an actor that does not exist.
    n = next(i for i, line in enumerate(data) if '"model": "voyage.event"' in line and '"actor": [' in line)
    row = json.loads(data[n])
    row["fields"]["actor"] = [row["fields"]["run"][0], "nobody_at_all"]
    data[n] = json.dumps(row)
    path.write_bytes(gzip.compress("\n".join(data).encode()))
    return path, "nobody_at_all"


@pytest.mark.parametrize("how", ["truncated", "broken_foreign_key"])
def test_a_damaged_fixture_is_refused_and_leaves_nothing(how, source, tmp_path):
    path, named = damaged(source["fixture"], tmp_path, how)
    with ScratchDB("sqlite") as db:
        manage_json(db.env(), "run_voyage", "--ticks", "10")
        before = counts(db)
        with pytest.raises(RuntimeError) as refused:
            manage(db.env(), "loaddata", str(path))
        assert named in str(refused.value)
        assert counts(db) == before
