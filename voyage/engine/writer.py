"""TickWriter: everything one tick writes, applied to the in-memory world at once and committed to
the database together with the run's tick counter."""
from __future__ import annotations

from django.db import connection, transaction
from django.utils import timezone

from memories.importance import importance_of
from memories.job_inputs import fix_inputs, promise
from memories.jobs import MemoryJob, queue_jobs, record
from memories.models import Memory, TrustEntry, TrustHistory
from voyage.calls.record import call_record
from voyage.engine.world import HotLine, RunWorld
from voyage.gateway.base import ModelAnswer, ModelRequest
from voyage.models import Event, LLMCall, Run
from world.models import AgentState
from world.rules.ladder import PEOPLE_NAMES


class TickConflict(RuntimeError):
    """Another process committed this tick first: this tick's work is discarded."""


class TickWriter:
    def __init__(self, world: RunWorld, tick: int):
        self.world = world
        self.start_tick = tick
        self.tick = tick  # step 4 moves it on: memories and events of steps 5-9 carry the new tick
        self.memories: list[Memory] = []
        self.memories_of: dict[int, list[Memory]] = {}  # the same rows by agent: no scan of the tick's rows per agent
        self.hot_lines: list[HotLine] = []  # their lines in the hot windows, which learn the rows' ids on commit
        self.events: list[Event] = []
        self.calls: list[LLMCall] = []
        self.trust_new: list[TrustEntry] = []
        self.trust_changed: dict[int, TrustEntry] = {}
        self.history: list[tuple[TrustEntry, TrustHistory]] = []
        self.dirty: set[int] = set()
        self.others: list = []  # other rows of the tick (diary entries), inserted with it
        self.memory_jobs: list[MemoryJob] = []  # compaction and dreams, done or queued once the tick commits

    # --- buffering ------------------------------------------------------------------------
    def remember(self, agent: AgentState, kind: str, text: str, importance: int | None = None, **extra) -> Memory:
        importance = importance if importance is not None else importance_of(kind)
        row = Memory(run_id=self.world.run.pk, agent_id=agent.id, tick=self.tick, kind=kind, text=text,
                     importance=importance, **extra)
        self.memories.append(row)
        self.memories_of.setdefault(agent.id, []).append(row)
        line = HotLine(self.tick, kind, text, importance, extra.get("depth", 0), row=row)
        self.world.hot[agent.id].append(line)
        self.hot_lines.append(line)
        self.world.memory.grow(agent.id, len(text))
        agent.importance_accumulator += importance
        self.dirty.add(agent.id)
        return row

    def event(self, kind: str, *, actor: AgentState | None = None, room_id: int | None = None, text: str = "",
              data: dict | None = None) -> None:
        event = Event(run_id=self.world.run.pk, tick=self.tick, seq=self.world.next_seq(), kind=kind,
                      actor=actor, room_id=room_id, text=text, data=data or {})
        self.events.append(event)
        self.world.since_digest.append(event)

    def call(self, request: ModelRequest, answer: ModelAnswer, outcome: str, detail: str = "") -> None:
        self.calls.append(call_record(self.world.run.pk, request, answer, outcome, detail))

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
            self.trust_new.append(entry)
            self.history.append((entry, TrustHistory(tick=self.tick, score=entry.score, label=label,
                                                     rationale="first met")))
        elif entry.pk:
            self.trust_changed[entry.pk] = entry
        entry.interaction_count += 1
        entry.updated_tick = self.tick
        if self.world.knows(agent, PEOPLE_NAMES):
            entry.known_by_name = True
        return entry

    # --- commit ---------------------------------------------------------------------------
    def commit(self, new_tick: int, memory=queue_jobs) -> None:
        """Insert the tick's rows with the run's new tick counter, then hand its memory jobs to `memory`
        (queued on the memory cluster unless the caller does them itself)."""
        run = self.world.run
        with transaction.atomic():
            advanced = Run.objects.filter(pk=run.pk, tick=self.start_tick).update(tick=new_tick, heartbeat_at=timezone.now())
            if advanced != 1:
                raise TickConflict(f"run {run.pk}: tick {self.start_tick} was already committed elsewhere")
            Memory.objects.bulk_create(self.memories, batch_size=500)
            resolve_evidence(self.memories)
            for model in {type(o) for o in self.others}:
                model.objects.bulk_create([o for o in self.others if type(o) is model])
            Event.objects.bulk_create(self.events, batch_size=500)
            LLMCall.objects.bulk_create(self.calls, batch_size=200)
            TrustEntry.objects.bulk_create(self.trust_new)
            if self.trust_changed:
                update_rows(TrustEntry, self.trust_changed.values(), TRUST_FIELDS)
            if self.history:
                for entry, row in self.history:
                    row.entry_id = entry.pk
                TrustHistory.objects.bulk_create([row for _, row in self.history])
            if self.dirty:
                update_rows(AgentState, [self.world.agents[i] for i in sorted(self.dirty)], AGENT_FIELDS)
            # What each job will read is fixed now, by this tick (memories.job_inputs); done or queued
            # below, and a resumed run (or the memory cluster's rescue) finishes what a crash left.
            self.memory_jobs = fix_inputs(self.memory_jobs, self.world) if self.memory_jobs else []
            record(self.memory_jobs)
        run.tick = new_tick
        for line in self.hot_lines:  # the hot windows keep ids, not the tick's row objects (a world's worth of them)
            line.row_id, line.row = line.row.pk, None
        if self.memory_jobs:
            promise(self.memory_jobs, self.world)
            memory(self.memory_jobs)


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
    "slept_since_tick",
]
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
