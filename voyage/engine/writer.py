"""TickWriter: everything one tick writes, applied to the in-memory world at once and committed to
the database together with the run's tick counter."""
from __future__ import annotations

import weakref
from contextlib import contextmanager
from functools import lru_cache
from operator import attrgetter

from django.db import connection, transaction
from django.utils import timezone

from memories.importance import importance_of
from memories.job_inputs import fix_inputs, promise
from memories.jobs import MemoryJob, queue_jobs, record
from memories.models import Memory, TrustEntry, TrustHistory
from voyage.calls.record import call_record
from voyage.engine.world import HotLine, RunWorld
from voyage.gateway.base import ACTION, ModelAnswer, ModelRequest
from voyage.models import Event, LLMCall, Run
from world.models import AgentState
from world.rules.ladder import PEOPLE_NAMES
from world.rules.tick_order import after_increment


class Keyed(list):
    """A tick's rows of one kind, each with the key of the step that wrote it (TickWriter.at). Under
    lock-step the key never changes and the rows stay in the order they were written; the
    out-of-order schedule (voyage/engine/ahead.py) runs steps out of their order, and `in_order`
    puts the rows back in lock-step's order (stably: a step's own rows keep theirs).

    The list holds its writer weakly: a writer holding its lists that held it back would be a cycle,
    and a tick's rows (its calls' compressed prompts among them) would wait for the cyclic garbage
    collector after the tick is done — at 2,048 agents, several ticks' worth of rows at once."""

    def __init__(self, writer: "TickWriter"):
        super().__init__()
        self._writer = weakref.proxy(writer)
        self._keys: list[tuple] = []

    def append(self, item) -> None:
        super().append(item)
        self._keys.append(self._writer.key)

    def in_order(self) -> list:
        keys = self._keys
        if not keys or all(k == keys[0] for k in keys):
            return list(self)
        return [self[i] for i in sorted(range(len(self)), key=lambda i: keys[i])]


class TickConflict(RuntimeError):
    """Another process committed this tick first: this tick's work is discarded."""


class TickWriter:
    def __init__(self, world: RunWorld, tick: int):
        self.world = world
        self.start_tick = tick
        self.tick = tick  # step 4 moves it on: memories and events of steps 5-9 carry the new tick
        self.key: tuple = ()  # the step writing now (`at`), where the out-of-order schedule runs steps out of order
        self.memories: list[Memory] = Keyed(self)
        self.memories_of: dict[int, list[Memory]] = {}  # the same rows by agent: no scan of the tick's rows per agent
        self.hot_lines: list[HotLine] = []  # their lines in the hot windows, which learn the rows' ids on commit
        self.events: list[Event] = Keyed(self)  # numbered (seq) when the tick commits, in lock-step's order
        self.calls: list[LLMCall] = Keyed(self)
        self.trust_new: list[TrustEntry] = Keyed(self)
        self._new_entries: set[int] = set()  # id() of trust_new's entries
        self.trust_changed: dict[tuple[int, int], TrustEntry] = {}  # by (agent, other): an entry may have no id yet
        self.trust_of: dict[int, list[TrustEntry]] = {}  # the entries of both, by agent (`keep`: no scan of them all)
        self.history: list[tuple[TrustEntry, TrustHistory]] = Keyed(self)
        self.dirty: set[int] = set()
        self.others: list = Keyed(self)  # other rows of the tick (diary entries), inserted with it
        self.memory_jobs: list[MemoryJob] = Keyed(self)  # compaction and dreams, done or queued once the tick commits
        self.as_it_stood: dict[int, tuple] = {}  # agent id -> its row and ledger at the end of this tick (`keep`)

    # --- buffering ------------------------------------------------------------------------
    def remember(self, agent: AgentState, kind: str, text: str, importance: int | None = None, **extra) -> Memory:
        importance = importance if importance is not None else importance_of(kind)
        row = Memory(run_id=self.world.run.pk, agent_id=agent.id, tick=self.tick, kind=kind, text=text,
                     importance=importance, **extra)
        self.memories.append(row)
        self.memories_of.setdefault(agent.id, []).append(row)
        line = HotLine(self.tick, kind, text, importance, extra.get("depth", 0), row=row, writer_tick=self.start_tick)
        self.world.hot[agent.id].append(line)
        self.hot_lines.append(line)
        self.world.memory.grow(agent.id, len(text))
        agent.importance_accumulator += importance
        self.dirty.add(agent.id)
        return row

    def event(self, kind: str, *, actor: AgentState | None = None, room_id: int | None = None, text: str = "",
              data: dict | None = None) -> None:
        event = Event(run_id=self.world.run.pk, tick=self.tick, seq=None, kind=kind,  # seq: on commit
                      actor=actor, room_id=room_id, text=text, data=data or {})
        self.events.append(event)
        self.world.since_digest.add(event)

    def call(self, request: ModelRequest, answer: ModelAnswer, outcome: str, detail: str = "") -> None:
        self.calls.append(call_record(self.world.run.pk, request, answer, outcome, detail))
        if request.purpose == ACTION:  # the agent's recall state, as this prompt left it, commits with the call
            self.dirty.add(request.agent_id)

    def touch(self, agent: AgentState) -> None:
        self.dirty.add(agent.id)

    def met(self, agent: AgentState, other: AgentState, label: str = "acquaintance") -> TrustEntry:
        """Count an interaction in the agent's trust ledger, opening the entry on first meeting."""
        key = (agent.id, other.id)
        entry = self.world.trust.get(key)
        if entry is None:
            entry = TrustEntry(run_id=self.world.run.pk, agent_id=agent.id, other_id=other.id, label=label,
                               first_met_tick=self.tick, updated_tick=self.tick, interaction_count=0)
            self.world.trust[key] = entry
            self.world.trust_of.setdefault(agent.id, []).append(entry)
            self.trust_new.append(entry)
            self._new_entries.add(id(entry))
            self.trust_of.setdefault(agent.id, []).append(entry)
            self.history.append((entry, TrustHistory(tick=self.tick, score=entry.score, label=label,
                                                     rationale="first met")))
        else:
            self.changed(entry)
        entry.interaction_count += 1
        entry.updated_tick = self.tick
        if self.world.knows(agent, PEOPLE_NAMES):
            entry.known_by_name = True
        return entry

    def at(self, step: int, *place) -> "TickWriter":
        """The out-of-order schedule: the rows from here on are the step's (its number in the tick's
        table, world/rules/tick_order.py), at `place` within it (the agent's place in the tick, or a
        reflection's stage and persona key), so that the commit puts them in lock-step's order; and
        a step after the tick increment writes with the new tick, as in lock-step. Under lock-step
        the key stays () and run_tick moves the tick on itself."""
        self.key = (step, *place)
        self.tick = self.start_tick + 1 if after_increment(step) else self.start_tick
        return self

    def stage(self, n: int) -> None:
        """A step that writes in stages (the reflections) says which its next rows belong to: out of
        order, one agent's stages are written apart, and sorted into a batch's order on commit. Under
        lock-step the key stays ()."""
        if self.key:
            self.key = (self.key[0], n, *self.key[2:])

    def changed(self, entry: TrustEntry) -> None:
        """An existing ledger entry changed this tick (one this tick opened is inserted whole). An
        entry opened by an earlier tick that has not committed yet has no id: it is updated by its
        (agent, other) once that tick has inserted it."""
        if id(entry) not in self._new_entries:
            key = (entry.agent_id, entry.other_id)
            if self.trust_changed.get(key) is not entry:
                mine = self.trust_of.setdefault(entry.agent_id, [])
                if (was := self.trust_changed.get(key)) is not None:
                    mine.remove(was)
                mine.append(entry)
            self.trust_changed[key] = entry

    def keep(self, agent: AgentState) -> None:
        """The out-of-order schedule, before `agent` starts the next tick while this one has not
        committed: remember its row and its ledger entries as they stand, the end of this tick, for
        the commit to write (whatever the agent does meanwhile)."""
        entries = self.trust_of.get(agent.id, ())
        self.as_it_stood[agent.id] = (_values(agent, AGENT_ATTRS), [(e, _values(e, TRUST_FIELDS)) for e in entries])

    # --- commit ---------------------------------------------------------------------------
    def commit(self, new_tick: int, memory=queue_jobs, run_fields: dict | None = None) -> None:
        """Insert the tick's rows with the run's new tick counter (and `run_fields`, other columns of
        the run), then hand its memory jobs to `memory` (queued on the memory cluster unless the
        caller does them itself)."""
        run = self.world.run
        memories, events, others = self.memories.in_order(), self.events.in_order(), self.others.in_order()
        for event in events:
            event.seq = self.world.next_seq()  # events are numbered run-wide in lock-step's order
        with transaction.atomic(), as_they_stood(self.as_it_stood, self.world):
            advanced = Run.objects.filter(pk=run.pk, tick=self.start_tick).update(
                tick=new_tick, heartbeat_at=timezone.now(), **(run_fields or {}))
            if advanced != 1:
                raise TickConflict(f"run {run.pk}: tick {self.start_tick} was already committed elsewhere")
            Memory.objects.bulk_create(memories, batch_size=500)
            resolve_evidence(memories)
            for model in {type(o) for o in others}:
                model.objects.bulk_create([o for o in others if type(o) is model])
            Event.objects.bulk_create(events, batch_size=500)
            LLMCall.objects.bulk_create(self.calls.in_order(), batch_size=200)
            TrustEntry.objects.bulk_create(self.trust_new.in_order())
            if self.trust_changed:
                update_rows(TrustEntry, self.trust_changed.values(), TRUST_FIELDS)
            if self.history:
                history = self.history.in_order()
                for entry, row in history:
                    row.entry_id = entry.pk
                TrustHistory.objects.bulk_create([row for _, row in history])
            if self.dirty:
                update_rows(AgentState, [self.world.agents[i] for i in sorted(self.dirty)], AGENT_FIELDS)
            # What each job will read is fixed now, by this tick (memories.job_inputs); done or queued
            # below, and a resumed run (or the memory cluster's rescue) finishes what a crash left.
            self.memory_jobs = fix_inputs(self.memory_jobs.in_order(), self.world) if self.memory_jobs else []
            record(self.memory_jobs)
        for key, value in (run_fields or {}).items():
            setattr(run, key, value)
        run.tick = new_tick
        for line in self.hot_lines:  # the hot windows keep ids, not the tick's row objects (a world's worth of them)
            line.row_id, line.row = line.row.pk, None
        if self.memory_jobs:
            promise(self.memory_jobs, self.world)
            memory(self.memory_jobs)


@contextmanager
def as_they_stood(kept: dict[int, tuple], world: RunWorld):
    """For the commit's writes: the agents `TickWriter.keep` kept, and their ledger entries, hold
    their values at the end of the tick; afterwards, their values now again."""
    now = []
    for aid, (agent_values, entries) in kept.items():
        agent = world.agents[aid]
        now.append((agent, _values(agent, AGENT_ATTRS)))
        _restore(agent, AGENT_ATTRS, agent_values)
        for entry, values in entries:
            now.append((entry, _values(entry, TRUST_FIELDS)))
            _restore(entry, TRUST_FIELDS, values)
    try:
        yield
    finally:
        for obj, values in reversed(now):
            _restore(obj, TRUST_FIELDS if isinstance(obj, TrustEntry) else AGENT_ATTRS, values)


def _values(obj, attrs) -> tuple:
    return _getter(tuple(attrs))(obj)


@lru_cache(maxsize=None)
def _getter(attrs: tuple):
    """Every attribute at once (operator.attrgetter; of one attribute it returns it bare)."""
    get = attrgetter(*attrs)
    return get if len(attrs) > 1 else lambda obj: (get(obj),)


def _restore(obj, attrs, values) -> None:
    for a, v in zip(attrs, values):
        setattr(obj, a, v)


def resolve_evidence(rows: list[Memory]) -> None:
    """Reflections citing rows of their own tick learn those rows' ids now that they are inserted."""
    pending = [m for m in rows if getattr(m, "evidence_rows", None)]
    for m in pending:
        m.evidence = sorted(r if isinstance(r, int) else r.pk for r in m.evidence_rows)
    if pending:
        update_rows(Memory, pending, ["evidence"])


AGENT_FIELDS = [
    "location", "destination", "rung", "rung_reached_tick", "busy_until_tick", "alive", "asleep", "kill_witness",
    "attrition", "fatigue", "importance_accumulator", "last_reflection_tick", "reflection_pending",
    "slept_since_tick", "recall",
]
AGENT_ATTRS = [AgentState._meta.get_field(f).attname for f in AGENT_FIELDS]
TRUST_FIELDS = ["interaction_count", "updated_tick", "score", "label", "emotional_tone", "rationale", "assessed_tick",
                "known_by_name"]


def update_rows(model, objects, field_names) -> None:
    """UPDATE ... WHERE id=%s with executemany: Django's bulk_update builds a CASE per field and
    object, which costs more than the rest of a tick together."""
    fields = [model._meta.get_field(name) for name in field_names]
    assignments = ", ".join(f"{connection.ops.quote_name(f.column)} = %s" for f in fields)
    sql = f"UPDATE {connection.ops.quote_name(model._meta.db_table)} SET {assignments} WHERE id = %s"
    params = [[f.get_db_prep_save(getattr(obj, f.attname), connection) for f in fields] + [obj.pk] for obj in objects]
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)
