"""TickWriter: everything one tick writes, applied to the in-memory world at once and committed to
the database together with the run's tick counter."""
from __future__ import annotations

import weakref
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter

from django.db import DEFAULT_DB_ALIAS, connection, connections, models, transaction
from django.utils import timezone

from memories.importance import importance_of
from memories.job_inputs import fix_inputs, promise, promised_rows, with_row_ids
from memories.jobs import MemoryJob, queue_jobs, record
from memories.models import Memory, TrustEntry, TrustHistory
from voyage.calls.record import call_record
from voyage.engine.world import HotLine, RunWorld
from voyage.gateway.base import ACTION, ModelAnswer, ModelRequest
from voyage.gateway.prompts import compress_messages
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
    def __init__(self, world: RunWorld, tick: int, *, prompts_in_write: bool = False):
        """`prompts_in_write`: the calls' prompts are compressed by `write`, not as each call is recorded
        (the out-of-order schedule, whose writes go on a thread of their own: there the JSON and zlib of
        thousands of prompts a tick leave the thread the agents' steps run on)."""
        self.world = world
        self.start_tick = tick
        self.prompts: list[tuple[LLMCall, list]] | None = [] if prompts_in_write else None  # (row, messages)
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
        # what `keep` kept, by agent id: its row's values (AGENT_ATTRS), its ledger entries with theirs
        self.rows_as_they_stood: dict[int, tuple] = {}
        self.ledgers_as_they_stood: dict[int, list] = {}

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
        if self.prompts is None:
            self.calls.append(call_record(self.world.run.pk, request, answer, outcome, detail))
        else:
            row = call_record(self.world.run.pk, request, answer, outcome, detail, prompt_z=b"")
            self.calls.append(row)
            self.prompts.append((row, request.messages))
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
        self.rows_as_they_stood[agent.id] = _values(agent, AGENT_ATTRS)
        self.ledgers_as_they_stood[agent.id] = [(e, _values(e, TRUST_FIELDS)) for e in entries]

    # --- commit ---------------------------------------------------------------------------
    def commit(self, new_tick: int, memory=queue_jobs, run_fields: dict | None = None) -> None:
        """Insert the tick's rows with the run's new tick counter (and `run_fields`, other columns of
        the run), then hand its memory jobs to `memory` (queued on the memory cluster unless the
        caller does them itself)."""
        self.finish(self.write(self.prepare(new_tick, run_fields)), memory)

    def prepare(self, new_tick: int, run_fields: dict | None = None) -> "Commit":
        """The first of the commit's three parts, on the thread that runs the tick: what it writes,
        read off the world now — the rows in lock-step's order, the events numbered, and the values
        of the rows that change (agents, ledger entries) as they stood at the end of the tick. So
        `write` reads nothing the schedule changes meanwhile, and may run on a thread of its own
        (voyage/engine/ahead.py) while the agents go on."""
        memories, events, others = self.memories.in_order(), self.events.in_order(), self.others.in_order()
        for event in events:
            event.seq = self.world.next_seq()  # events are numbered run-wide in lock-step's order
        trust_new = self.trust_new.in_order()
        with ledgers_as_they_stood(self.ledgers_as_they_stood):
            agents = [self.world.agents[i] for i in sorted(self.dirty)]
            agent_rows = _params(AGENT_DB_FIELDS, agents, with_pk=True, stood=self.rows_as_they_stood) if agents else []
            new_rows = _params(_insert_fields(TrustEntry), trust_new) if trust_new else []
            changed_rows = _params(TRUST_DB_FIELDS, self.trust_changed.values(), with_pk=True)
        # What each job will read is fixed by this tick: the rows it starts or ends at get their ids in `write`.
        jobs = fix_inputs(self.memory_jobs.in_order(), self.world, row_id=lambda line: line) if self.memory_jobs else []
        promise(jobs, self.world)
        return Commit(self.world.run.pk, self.start_tick, new_tick, dict(run_fields or {}), memories, events, others,
                      self.calls.in_order(), trust_new, new_rows, changed_rows, self.history.in_order(), agent_rows,
                      jobs, self.prompts or [])

    @staticmethod
    def write(c: "Commit") -> "Commit":
        """The second part, on any thread: one transaction, with the run's tick counter. Sets no id on
        the world's objects (`finish` does): until the tick has committed, its rows must not look
        committed to the schedule (voyage/engine/ahead.py, `_recall_ready`)."""
        for row, messages in c.prompts:  # (TickWriter.call)
            row.prompt_z = compress_messages(messages)
        c.prompts = []
        with transaction.atomic():
            advanced = Run.objects.filter(pk=c.run_id, tick=c.start_tick).update(
                tick=c.new_tick, heartbeat_at=timezone.now(), **c.run_fields)
            if advanced != 1:
                raise TickConflict(f"run {c.run_id}: tick {c.start_tick} was already committed elsewhere")
            ids = c.ids
            insert_rows(Memory, c.memories, ids)
            resolve_evidence(c.memories, c.pk_of)
            for model in {type(o) for o in c.others}:
                insert_rows(model, [o for o in c.others if type(o) is model], ids)
            insert_rows(Event, c.events, ids)
            insert_rows(LLMCall, c.calls, ids)
            insert_rows(TrustEntry, c.trust_new, ids, rows=c.trust_new_rows)
            if c.trust_changed_rows:
                update_rows(TrustEntry, None, TRUST_FIELDS, rows=c.trust_changed_rows)
            for entry, row in c.history:
                row.entry_id = c.pk_of(entry)
            insert_rows(TrustHistory, [row for _, row in c.history], ids)
            if c.agent_rows:
                update_rows(AgentState, None, AGENT_FIELDS, rows=c.agent_rows)
            # done or queued once committed (`finish`); a resumed run (or the memory cluster's
            # rescue) finishes what a crash left
            c.jobs = with_row_ids(c.jobs, lambda line: line.id if line.id is not None else ids[id(line.row)])
            record(c.jobs)
        return c

    def finish(self, c: "Commit", memory=queue_jobs) -> None:
        """The last part, on the thread that runs the tick, once `write` has committed: the rows get
        their ids, the run its new tick, and the memory jobs go to `memory`."""
        for rows in (c.memories, c.others, c.events, c.calls, c.trust_new, [row for _, row in c.history]):
            for obj in rows:
                obj.pk = c.ids[id(obj)]
                obj._state.adding, obj._state.db = False, connection.alias
        run = self.world.run
        for key, value in c.run_fields.items():
            setattr(run, key, value)
        run.tick = c.new_tick
        for line in self.hot_lines:  # the hot windows keep ids, not the tick's row objects (a world's worth of them)
            line.row_id, line.row = line.row.pk, None
        self.memory_jobs = c.jobs
        if c.jobs:
            promised_rows(c.jobs, self.world)
            memory(c.jobs)


@dataclass
class Commit:
    """What one tick writes (TickWriter.prepare), and the ids its rows got (`ids`, by id() of the
    row object: set on the rows by TickWriter.finish)."""
    run_id: int
    start_tick: int
    new_tick: int
    run_fields: dict
    memories: list
    events: list
    others: list
    calls: list
    trust_new: list
    trust_new_rows: list
    trust_changed_rows: list
    history: list
    agent_rows: list
    jobs: list
    prompts: list  # (call, messages): the prompts `write` compresses (TickWriter.call)
    ids: dict = field(default_factory=dict)

    def pk_of(self, obj) -> int:
        """A row's id: its own if an earlier tick inserted it, else the one this commit gave it."""
        return obj.pk if obj.pk is not None else self.ids[id(obj)]


@contextmanager
def ledgers_as_they_stood(kept: dict[int, list]):
    """For the commit's writes: the ledger entries of the agents `TickWriter.keep` kept hold their values
    at the end of the tick; afterwards, their values now again. (The agents' own rows are written from
    the values kept: TickWriter.rows_as_they_stood, `_params`'s `stood`.)"""
    now = []
    for entries in kept.values():
        for entry, values in entries:
            now.append((entry, _values(entry, TRUST_FIELDS)))
            _restore(entry, TRUST_FIELDS, values)
    try:
        yield
    finally:
        for entry, values in reversed(now):
            _restore(entry, TRUST_FIELDS, values)


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


def resolve_evidence(rows: list[Memory], pk_of) -> None:
    """Reflections citing rows of their own tick learn those rows' ids now that they are inserted."""
    pending = [m for m in rows if getattr(m, "evidence_rows", None)]
    for m in pending:
        m.evidence = sorted(r if isinstance(r, int) else pk_of(r) for r in m.evidence_rows)
    if pending:
        evidence = Memory._meta.get_field("evidence")
        update_rows(Memory, None, ["evidence"],
                    rows=[(evidence.get_db_prep_save(m.evidence, connection), pk_of(m)) for m in pending])


AGENT_FIELDS = [
    "location", "destination", "rung", "rung_reached_tick", "busy_until_tick", "alive", "asleep", "kill_witness",
    "attrition", "fatigue", "importance_accumulator", "last_reflection_tick", "reflection_pending",
    "slept_since_tick", "recall",
]
AGENT_ATTRS = [AgentState._meta.get_field(f).attname for f in AGENT_FIELDS]
AGENT_DB_FIELDS = [AgentState._meta.get_field(f) for f in AGENT_FIELDS]
TRUST_FIELDS = ["interaction_count", "updated_tick", "score", "label", "emotional_tone", "rationale", "assessed_tick",
                "known_by_name"]
TRUST_DB_FIELDS = [TrustEntry._meta.get_field(f) for f in TRUST_FIELDS]


def update_rows(model, objects, field_names, rows: list | None = None) -> None:
    """UPDATE ... WHERE id=%s with executemany (of the objects' values, or `rows`: the values and
    the id, prepared): Django's bulk_update builds a CASE per field and object, which costs more
    than the rest of a tick together."""
    fields = [model._meta.get_field(name) for name in field_names]
    assignments = ", ".join(f"{connection.ops.quote_name(f.column)} = %s" for f in fields)
    sql = f"UPDATE {connection.ops.quote_name(model._meta.db_table)} SET {assignments} WHERE id = %s"
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows if rows is not None else _params(fields, objects, with_pk=True))


def insert_rows(model, objects: list, ids: dict, rows: list | None = None) -> None:
    """Insert the objects (their values now, or `rows`, prepared) and put their ids in `ids` (by id()
    of the object), for a fraction of bulk_create's CPU: bulk_create sends every value of every row
    through the field's preparation and the SQL compiler, and at 2,048 agents that was two thirds
    of a tick's commit, on the critical path of the out-of-order schedule. Here one INSERT runs with
    executemany over plain tuples, and only the values that need it (JSON, decimals, bytes) are
    prepared. Called inside the tick's transaction, which holds SQLite's write lock, so the ids of
    the batch are consecutive, ending at last_insert_rowid (a trigger's own inserts do not move
    it). On another database, bulk_create (which also sets the ids on the objects)."""
    if not objects:
        return
    if connection.vendor != "sqlite":
        model.objects.bulk_create(objects, batch_size=500)
        ids.update((id(obj), obj.pk) for obj in objects)
        return
    fields = _insert_fields(model)
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    sql = (f"INSERT INTO {connection.ops.quote_name(model._meta.db_table)} ({columns}) "
           f"VALUES ({', '.join(['%s'] * len(fields))})")
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows if rows is not None else _params(fields, objects))
        cursor.execute("SELECT last_insert_rowid()")
        last = cursor.fetchone()[0]
    ids.update(zip(map(id, objects), range(last - len(objects) + 1, last + 1)))


def _insert_fields(model) -> list:
    return [f for f in model._meta.concrete_fields if not f.primary_key]


# Fields whose values SQLite takes as they are (ints, strings, floats, booleans); every other
# field's values, and all on another database, are prepared by the field (JSON encoded, and so on).
PLAIN = (models.IntegerField, models.CharField, models.TextField, models.FloatField, models.BooleanField)


def _params(fields, objects, with_pk: bool = False, stood: dict | None = None) -> list:
    """Each object's values of `fields` (and its id), ready for the database. `stood`: for some objects, by
    id, the values of `fields` to write instead of those they hold now (what TickWriter.keep kept)."""
    get = _getter(tuple(f.attname for f in fields) + (("pk",) if with_pk else ()))
    if stood:
        def get(obj, now=get):
            values = stood.get(obj.pk)
            return now(obj) if values is None else (*values, obj.pk) if with_pk else values
    prepared = [(i, f) for i, f in enumerate(fields) if not _plain(f)]
    if not prepared:
        return [get(obj) for obj in objects]
    db = connections[DEFAULT_DB_ALIAS]  # the thread's connection, looked up once (`connection` looks it up at each use)
    rows = []
    for obj in objects:
        values = list(get(obj))
        for i, f in prepared:
            values[i] = f.get_db_prep_save(values[i], db)
        rows.append(values)
    return rows


def _plain(field) -> bool:
    if connection.vendor != "sqlite":
        return False
    return isinstance(field.target_field if field.is_relation else field, PLAIN)
