"""The oracle tests' comparison: two runs that should be the same, event by event.

Where two runs' transcripts (or memory tables, or model calls) differ, the assertion names the first
thing that differs — its place, tick, agent, kind and both texts — so a developer reads where two
runs part instead of two hashes, without rerunning either by hand. The rows compared are the ones
`transcript_sha256` and `memory_sha256` hash: content only, no database id, no wall-clock time.
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from memories.digest import memory_tables
from voyage.models import Event, LLMCall

TEXT_SHOWN = 300  # characters of each side's text an assertion message quotes


@dataclass(frozen=True)
class Entry:
    """One event of a transcript (or one call, or one memory row) as the comparison reads it."""
    tick: int | None
    agent: str | None
    kind: str
    text: str
    rest: tuple = ()  # what else the hash covers (room, data, ...): compared, shown only if it alone differs

    def line(self) -> str:
        shown = self.text if len(self.text) <= TEXT_SHOWN else self.text[:TEXT_SHOWN] + "…"
        return f"tick {self.tick}, agent {self.agent}, {self.kind}: {shown!r}" + (f" {self.rest}" if self.rest else "")


def transcript(run) -> list[Entry]:
    rows = (Event.objects.filter(run=run).order_by("seq")
            .values_list("tick", "actor__persona__key", "kind", "text", "room__key", "data"))
    return [Entry(tick, actor, kind, text, (room, data)) for tick, actor, kind, text, room, data in rows]


TRANSCRIPT_SQL = ("SELECT e.tick, p.key, e.kind, e.text, r.key, e.data FROM event_log e "
                  "LEFT JOIN agent_state a ON a.id = e.actor_id LEFT JOIN world_persona p ON p.id = a.persona_id "
                  "LEFT JOIN world_room r ON r.id = e.room_id WHERE e.run_id = %s ORDER BY e.seq")


def transcript_in(db_path, run_id: int) -> list[Entry]:
    """The same rows from a run in an SQLite file another process wrote (a test's subprocess run)."""
    with sqlite3.connect(db_path) as conn:
        return _entries(conn.execute(TRANSCRIPT_SQL.replace("%s", "?"), (run_id,)))


def transcript_through(query, run_id: int) -> list[Entry]:
    """The same rows read through `query(sql, params)` with %s placeholders (e.g. `ScratchDB.query`):
    a run in another process's database, SQLite or PostgreSQL."""
    return _entries(query(TRANSCRIPT_SQL, (run_id,)))


def _entries(rows) -> list[Entry]:
    # SQLite hands an event's data back as JSON text, PostgreSQL's jsonb as the value itself
    return [Entry(tick, key, kind, text, (room, json.loads(data) if isinstance(data, str) else data))
            for tick, key, kind, text, room, data in rows]


_references: dict = {}


def reference_with_events(ticks: int, seed: int) -> dict:
    """`voyage.bench.fleet.reference`'s run, made the same way (run_voyage --memory-worker on a fresh
    SQLite database), its figures with its events under "events", read before the database goes;
    cached per process."""
    from voyage.bench.fleet import ScratchDB, manage_json

    if (ticks, seed) not in _references:
        with ScratchDB("sqlite") as db:
            figures = manage_json(db.env(), "run_voyage", "--ticks", str(ticks), "--seed", str(seed),
                                  "--memory-worker")[-1]
            _references[ticks, seed] = {**figures, "events": transcript_through(db.query, figures["run_id"])}
    return _references[ticks, seed]


def calls(run) -> list[Entry]:
    rows = (LLMCall.objects.filter(run=run).order_by("id")
            .values_list("tick", "agent__persona__key", "purpose", "raw_answer", "outcome", "detail"))
    return [Entry(tick, agent, purpose, raw, (outcome, detail)) for tick, agent, purpose, raw, outcome, detail in rows]


def memory(run) -> list[Entry]:
    return memory_entries(memory_tables(run))


def memory_entries(tables: dict[str, list]) -> list[Entry]:
    """Every row of `memory_tables`, table by table, each read as (table, agent, tick, text)."""
    return [_memory_entry(table, row) for table, rows in tables.items() for row in rows]


def _memory_entry(table: str, row: list) -> Entry:
    tick = row[5] if table == "summaries" else row[1] if table in ("dreams", "trust_history") else row[3]
    text = row[6] if table in ("summaries", "diary", "trust_history") else row[4]
    return Entry(tick, row[0], table, str(text), tuple(map(str, row)))


def first_difference(left: list[Entry], right: list[Entry]) -> str | None:
    """None when both are the same; else where they part, in words."""
    for n, (a, b) in enumerate(zip(left, right)):
        if a != b:
            return f"they part at entry #{n}:\n  left:  {a.line()}\n  right: {b.line()}"
    if len(left) == len(right):
        return None
    longer, side = (left, "left") if len(left) > len(right) else (right, "right")
    return (f"they agree on {min(len(left), len(right))} entries, then only the {side} goes on "
            f"({len(longer)} in all), with:\n  {longer[min(len(left), len(right))].line()}")


def assert_same(left: list[Entry], right: list[Entry], what: str = "transcripts") -> None:
    difference = first_difference(left, right)
    assert difference is None, f"the {what} differ: {difference}"


def assert_same_transcript(left_run, right_run) -> None:
    assert_same(transcript(left_run), transcript(right_run), "transcripts")


def assert_same_memory(left_run, right_run) -> None:
    assert_same(memory(left_run), memory(right_run), "memory tables")


def assert_same_calls(left_run, right_run) -> None:
    assert_same(calls(left_run), calls(right_run), "model calls")
