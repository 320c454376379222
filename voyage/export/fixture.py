"""A run as a Django fixture: JSON Lines in gzip (`run.jsonl.gz`), which `manage.py loaddata` reads
as it is, line by line.

What travels: the run (its parameters), its model profile (the *name* of the key's variable, never
a key), its scenario (rooms, exits, personas, soul entries, props, rungs), the cast (agent states),
memories, summaries, dreams, diary, trust ledger and history, events and model calls with their
prompts. No primary keys: every reference is a natural key (slugs, persona and room keys, the run's
uuid), so the fixture loads into a database that holds other runs. The scenario is named by its
slug: where the same scenario is installed already, `loaddata` finds each of its rows by natural
key and updates it in place (no copy is made; the fixture's text wins where they differ); elsewhere
it is created. Memory-row references are written as row numbers (see rows.py).

Only a run that is not queued or running is exported (its rows would change while they are read).
It is written unclaimed, without `replay_of`/`forked_from` (those runs are not in the fixture). Rows stream from the database in
chunks and out through gzip, so memory stays bounded whatever the run's size.
"""
from __future__ import annotations

import copy
import gzip
from itertools import chain
from typing import IO, Iterable, Iterator

from django.core.serializers.jsonl import Serializer as JsonlSerializer

from memories.attempts import catch_up_run
from memories.models import DiaryEntry, Dream, Memory, MemorySummary, TrustEntry, TrustHistory
from voyage.export.rows import RowNumbers
from voyage.instruments.models import Intervention
from voyage.models import Event, LLMCall, Run
from world.models import AgentState, Exit, Persona, Prop, Room, Rung, SoulEntry

CHUNK = 2000
SUFFIX = ".jsonl.gz"


class ExportError(Exception):
    pass


class FixtureSerializer(JsonlSerializer):
    """JSON Lines with natural keys and never a primary key."""

    def get_dump_object(self, obj):
        data = super().get_dump_object(obj)
        data.pop("pk", None)
        return data

    def handle_fk_field(self, obj, field):
        if not hasattr(field.remote_field.model, "natural_key"):
            raise ExportError(f"{obj._meta.label}.{field.name} points at {field.remote_field.model._meta.label}, "
                              f"which has no natural key: the fixture would carry a primary key")
        super().handle_fk_field(obj, field)


def scenario_rows(scenario) -> Iterator:
    yield scenario
    yield from Room.objects.filter(scenario=scenario).select_related("scenario").order_by("id")
    yield from Exit.objects.filter(scenario=scenario).select_related("scenario", "a", "b").order_by("id")
    yield from Persona.objects.filter(scenario=scenario).select_related("scenario", "home_node__scenario",
                                                                        "spouse__scenario").order_by("id")
    yield from SoulEntry.objects.filter(persona__scenario=scenario).select_related(
        "persona__scenario").order_by("persona_id", "position", "id")
    yield from Prop.objects.filter(scenario=scenario).select_related("scenario", "room__scenario",
                                                                     "owner__scenario").order_by("id")
    yield from Rung.objects.filter(scenario=scenario).select_related("scenario").order_by("level")


def run_row(run):
    """The run as it should arrive: unclaimed, with no links to runs left behind."""
    row = copy.copy(run)
    row.claimed_by, row.heartbeat_at = "", None
    row.replay_of = row.forked_from = None
    return row


def with_agents(rows: Iterable, agents: dict, *fields: str) -> Iterator:
    """Attach the run's agents (already loaded with run and persona) to each row, so that writing
    their natural keys costs no query per row."""
    for row in rows:
        for name in fields:
            agent_id = getattr(row, f"{name}_id")
            if agent_id is not None:
                setattr(row, name, agents[agent_id])
        yield row


def run_rows(run) -> Iterator:
    agents = {a.id: a for a in AgentState.objects.filter(run=run).select_related(
        "run", "persona__scenario", "location__scenario", "destination__scenario").order_by("id")}
    numbers = RowNumbers(run.pk)
    light = run_row(run)

    def of_run(model, *agent_fields, order=("id",), related=()):
        rows = model.objects.filter(run=run).order_by(*order)
        if related:  # (select_related() with no names would follow every relation)
            rows = rows.select_related(*related)
        rows = rows.iterator(chunk_size=CHUNK)
        for row in with_agents(rows, agents, *agent_fields):
            row.run = light
            yield row

    def portable_memories():
        for row in of_run(Memory, "agent"):
            if row.evidence:
                row.evidence = numbers.all_of(row.evidence)
            yield row

    def portable(model, order):
        for row in of_run(model, "agent", order=order):
            row.first_row, row.last_row = numbers.of(row.first_row), numbers.of(row.last_row)
            yield row

    yield light
    for agent in agents.values():
        agent.run = light
        agent.recall = numbers.recall_of(agent.recall)
    yield from agents.values()
    yield from portable_memories()
    # Higher levels first: a summary's folded_into names one already written.
    yield from portable(MemorySummary, ("-level", "id"))
    yield from portable(Dream, ("id",))
    yield from of_run(DiaryEntry, "agent", related=("location__scenario",))
    yield from of_run(TrustEntry, "agent", "other")
    history = (TrustHistory.objects.filter(entry__run=run).order_by("id").iterator(chunk_size=CHUNK))
    entries = {e.id: e for e in TrustEntry.objects.filter(run=run)}
    for entry in entries.values():
        entry.agent, entry.other = agents[entry.agent_id], agents[entry.other_id]
    for row in history:
        row.entry = entries[row.entry_id]
        yield row
    rooms = {r.id: r for r in run.scenario.rooms.select_related("scenario")}
    for row in of_run(Event, "actor"):
        if row.room_id is not None:
            row.room = rooms[row.room_id]
        yield row
    for row in of_run(LLMCall, "agent"):
        if row.recalled:
            row.recalled = numbers.all_of(row.recalled)
        yield row

    for row in of_run(Intervention, "agent"):  # what a replay or a continuation applies again (not interviews)
        if row.room_id is not None:
            row.room = rooms[row.room_id]
        yield row


def fixture_rows(run) -> Iterator:
    profile = [run.profile] if run.profile_id else []
    return chain(profile, scenario_rows(run.scenario), run_rows(run))


def write_fixture(run, out: IO[str]) -> None:
    if run.state in (Run.QUEUED, Run.RUNNING):
        # Its rows would change while they are read: the file could hold half a tick.
        raise ExportError(f"run {run.pk} is {run.state}: pause it first (manage.py voyage_control pause {run.pk}, "
                          f"or the admin's pause action), then export it")
    # Memory jobs its ticks asked for and no worker has done yet are done (or waited for) here: the
    # fixture carries the summaries and dreams the run owes, never a half of them.
    catch_up_run(run.pk)
    FixtureSerializer().serialize(fixture_rows(run), stream=out, use_natural_foreign_keys=True,
                                  use_natural_primary_keys=True)


def export_run(run, path: str) -> None:
    """Write the run's fixture to `path` (which must end in .jsonl.gz, so loaddata reads it as JSON
    Lines in gzip). gzip's trailer (CRC and length) is what lets loaddata refuse a truncated file."""
    if not str(path).endswith(SUFFIX):
        raise ExportError(f"name the fixture *{SUFFIX}: loaddata reads the format from the name "
                          f"(JSON Lines, gzip-compressed), e.g. run-{run.pk}{SUFFIX}")
    write_gzip(run, path)


def write_gzip(run, target) -> None:
    """The fixture, gzip-compressed, into a path or an open binary file (left open)."""
    with gzip.open(target, "wt", encoding="utf-8", compresslevel=1) as out:  # prompts are zlib already
        write_fixture(run, out)
