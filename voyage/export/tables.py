"""Tidy tables of a run for analysis: one CSV per table, one row per observation, a fixed column
set each (README, "Tidy tables"). Every table streams from the database; nothing holds a run.

    events        run, seq, tick, day, time, kind, actor, room, text, data
    memories      run, memory_id, agent, tick, kind, importance, depth, text, evidence
    trust_history run, agent, other, tick, score, label, emotional_tone, rationale
    rung_changes  run, tick, agent, rung, rung_name
    model_calls   run, call_id, tick, agent, purpose, outcome, answered, prompt_tokens, completion_tokens,
                  reasoning_tokens, cached_tokens, latency_ms, attempts, cost   (never the prompt or answer)
    agent_states  run, tick, agent, room, asleep, alive, rung   (tick 0, then each tick after which one changed)

People and rooms are named by key (persona key, room key), as in the scenario file; `data` and
`evidence` are JSON; booleans are true/false; times are the simulated clock.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import IO, Callable, Iterator

from memories.models import Memory, TrustHistory
from voyage.models import Event, LLMCall
from voyage.records.timetravel import LoggedEvent, apply, committed_as, start_of_run
from world.time import day_of, time_of_day

CHUNK = 5000


def events(run) -> Iterator[list]:
    rows = (Event.objects.filter(run=run).order_by("seq")
            .values_list("seq", "tick", "kind", "actor__persona__key", "room__key", "text", "data"))
    for seq, tick, kind, actor, room, text, data in rows.iterator(chunk_size=CHUNK):
        yield [run.pk, seq, tick, day_of(tick), time_of_day(tick), kind, actor, room, text, json.dumps(data)]


def memories(run) -> Iterator[list]:
    rows = (Memory.objects.filter(run=run).order_by("id")
            .values_list("id", "agent__persona__key", "tick", "kind", "importance", "depth", "text", "evidence"))
    for row in rows.iterator(chunk_size=CHUNK):
        yield [run.pk, *row[:-1], json.dumps(row[-1])]


def trust_history(run) -> Iterator[list]:
    rows = (TrustHistory.objects.filter(entry__run=run).order_by("tick", "id")
            .values_list("entry__agent__persona__key", "entry__other__persona__key", "tick", "score", "label",
                         "emotional_tone", "rationale"))
    for row in rows.iterator(chunk_size=CHUNK):
        yield [run.pk, *row]


def rung_changes(run) -> Iterator[list]:
    names = dict(run.scenario.rungs.values_list("level", "name"))
    rows = (Event.objects.filter(run=run, kind="rung").order_by("seq")
            .values_list("tick", "actor__persona__key", "data"))
    for tick, agent, data in rows.iterator(chunk_size=CHUNK):
        level = int(data.get("rung", 0))
        yield [run.pk, tick, agent, level, names.get(level, "")]


def model_calls(run) -> Iterator[list]:
    rows = (LLMCall.objects.filter(run=run).order_by("id")
            .values_list("id", "tick", "agent__persona__key", "purpose", "outcome", "answered", "prompt_tokens",
                         "completion_tokens", "reasoning_tokens", "cached_tokens", "latency_ms", "attempts", "cost"))
    for row in rows.iterator(chunk_size=CHUNK):
        yield [run.pk, *row]


def agent_states(run) -> Iterator[list]:
    """Folded from the event log by the time-travel rules (voyage/records/timetravel.py): everyone at
    tick 0, then each agent whose room, sleep, life or rung changed, after each committed tick."""
    homes = dict(run.agents.values_list("persona__key", "persona__home_node__key"))
    ship = start_of_run(homes)
    for agent, at in sorted(ship.items()):
        yield [run.pk, 0, agent, at.room, at.asleep, at.alive, at.rung]
    rows = (Event.objects.filter(run=run).order_by("seq")
            .values_list("tick", "kind", "actor__persona__key", "room__key", "data"))
    shown, commit = dict(ship), None
    for tick, kind, actor, room, data in rows.iterator(chunk_size=CHUNK):
        number = committed_as(tick, kind)
        if commit is not None and number != commit:
            yield from changed(run.pk, commit, shown, ship)
        commit = number
        apply(ship, LoggedEvent(tick, kind, actor, room, data))
    if commit is not None:
        yield from changed(run.pk, commit, shown, ship)


def changed(run_id: int, tick: int, shown: dict, ship: dict) -> Iterator[list]:
    for agent in sorted(ship):
        at = ship[agent]
        if shown[agent] != at:
            shown[agent] = at
            yield [run_id, tick, agent, at.room, at.asleep, at.alive, at.rung]


TABLES: dict[str, tuple[list[str], Callable]] = {
    "events": (["run", "seq", "tick", "day", "time", "kind", "actor", "room", "text", "data"], events),
    "memories": (["run", "memory_id", "agent", "tick", "kind", "importance", "depth", "text", "evidence"], memories),
    "trust_history": (["run", "agent", "other", "tick", "score", "label", "emotional_tone", "rationale"],
                      trust_history),
    "rung_changes": (["run", "tick", "agent", "rung", "rung_name"], rung_changes),
    "model_calls": (["run", "call_id", "tick", "agent", "purpose", "outcome", "answered", "prompt_tokens",
                     "completion_tokens", "reasoning_tokens", "cached_tokens", "latency_ms", "attempts", "cost"],
                    model_calls),
    "agent_states": (["run", "tick", "agent", "room", "asleep", "alive", "rung"], agent_states),
}


def cell(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def csv_chunks(run, name: str, rows_per_chunk: int = 1000) -> Iterator[str]:
    """The table as CSV text, a chunk at a time (a file, or a streamed download)."""
    columns, rows = TABLES[name]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for n, row in enumerate(rows(run), start=1):
        writer.writerow([cell(v) for v in row])
        if n % rows_per_chunk == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def write_table(run, name: str, out: IO[str]) -> None:
    for chunk in csv_chunks(run, name):
        out.write(chunk)


def write_tables(run, directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name in TABLES:
        path = directory / f"{name}.csv"
        with path.open("w", newline="", encoding="utf-8") as out:
            write_table(run, name, out)
        written.append(path)
    return written
