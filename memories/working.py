"""WorkingMemory: what the context builder and the compaction check need of each agent's memory,
held in RunWorld so an action call costs no query: the compaction counters, the active summaries
(oldest first) and the latest dream.

Loaded when a chunk of ticks starts; every row the tick writes grows the counters, and a compaction
the tick asks for moves them on at once, as if done (`covered_below`: its rows are fixed by its
tick, memories.job_inputs), so they never depend on when a worker gets to a job; `refresh` (once per
active tick, two cheap queries) picks up the summaries and dreams the worker's jobs wrote meanwhile.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db import connection
from django.db.models import Count, Max, Sum
from django.db.models.functions import Length

from memories.job_records import Compaction
from memories.models import Dream, Memory, MemorySummary, PendingMemoryJob
from memories.thresholds import MemoryLoad


def promised(pending_compactions):
    """(agent id, first row it leaves uncovered) of each recorded compaction not yet done."""
    for agent_id, inputs in pending_compactions.values_list("agent_id", "inputs"):
        if inputs.get("below_row") is not None:
            yield agent_id, inputs["below_row"]


@dataclass(frozen=True)
class Recalled:
    """The block of rows an agent's recall state names: their ids and the text the prompt shows."""
    ids: tuple[int, ...]
    text: str


@dataclass(frozen=True)
class SummaryLine:
    id: int
    level: int
    first_row: int
    last_row: int
    tick: int
    text: str


@dataclass(frozen=True)
class DreamLine:
    id: int
    tick: int
    text: str


class WorkingMemory:
    def __init__(self, run, agent_ids):
        self.run = run
        self.agent_ids = list(agent_ids)
        self.load: dict[int, MemoryLoad] = {}
        self.summaries: dict[int, list[SummaryLine]] = {aid: [] for aid in self.agent_ids}
        self.dream: dict[int, DreamLine | None] = {aid: None for aid in self.agent_ids}
        # The recalled blocks (memories.context.load_recalled): the rows' ids and their text, as the
        # agents' committed recall states name them; a function of committed rows, held to save a query.
        self.recalled: dict[int, Recalled] = {}
        self.last_summary_id = MemorySummary.objects.filter(run=run).aggregate(m=Max("id"))["m"] or 0
        self.last_dream_id = Dream.objects.filter(run=run).aggregate(m=Max("id"))["m"] or 0
        covered = dict(MemorySummary.objects.filter(run=run, level=0).values("agent_id")
                       .annotate(m=Max("last_row")).values_list("agent_id", "m"))
        for aid, below in promised(PendingMemoryJob.objects.filter(run=run, job=Compaction.KIND)):
            covered[aid] = max(covered.get(aid) or 0, below - 1)
        for aid in self.agent_ids:
            self.load[aid] = self._count(aid, covered.get(aid) or 0)
        # Each agent's rows ever written: the number of its newest row (the cached layout's log names
        # the place of its recalled block by a row's number).
        self.rows: dict[int, int] = dict.fromkeys(self.agent_ids, 0)
        self.rows.update(Memory.objects.filter(agent_id__in=self.agent_ids).values("agent_id")
                         .annotate(n=Count("id")).values_list("agent_id", "n"))
        self._load_summaries(self.agent_ids)
        latest = (Dream.objects.filter(run=run).values("agent_id").annotate(m=Max("id")).values_list("m", flat=True))
        for d in Dream.objects.filter(id__in=list(latest)):
            self.dream[d.agent_id] = DreamLine(d.id, d.tick, d.text)

    @staticmethod
    def _count(agent_id: int, covered_upto: int) -> MemoryLoad:
        agg = Memory.objects.filter(agent_id=agent_id, id__gt=covered_upto).aggregate(n=Count("id"), c=Sum(Length("text")))
        return MemoryLoad(covered_upto=covered_upto, count=agg["n"] or 0, chars=agg["c"] or 0)

    def _load_summaries(self, agent_ids) -> None:
        for aid in agent_ids:
            self.summaries[aid] = []
        rows = (MemorySummary.objects.filter(agent_id__in=list(agent_ids), folded_into__isnull=True)
                .order_by("agent_id", "first_row", "level")
                .values_list("agent_id", "id", "level", "first_row", "last_row", "tick", "text"))
        for aid, *fields in rows:
            self.summaries[aid].append(SummaryLine(*fields))

    # --- the tick's side --------------------------------------------------------------------
    def grow(self, agent_id: int, chars: int) -> None:
        load = self.load[agent_id]
        load.count += 1
        load.chars += chars
        self.rows[agent_id] += 1

    def recount(self, agent_id: int) -> MemoryLoad:
        """Counters for one agent from the database (its committed rows): after a compaction, or to
        see whether a queued job has finished. Rows buffered in the current tick are added back."""
        covered = (MemorySummary.objects.filter(agent_id=agent_id, level=0).aggregate(m=Max("last_row"))["m"] or 0)
        jobs = PendingMemoryJob.objects.filter(run=self.run, job=Compaction.KIND, agent_id=agent_id)
        for _, below in promised(jobs):
            covered = max(covered, below - 1)
        fresh = self._count(agent_id, covered)
        self.load[agent_id] = fresh
        self._load_summaries([agent_id])
        return fresh

    def covered_below(self, agent_id: int, below_row: int, hot) -> None:
        """A compaction recorded to cover the agent's rows before `below_row`, the first of its hot
        window `hot`: from now on only the window is uncovered."""
        load = self.load[agent_id]
        if below_row - 1 > load.covered_upto:
            self.load[agent_id] = MemoryLoad(covered_upto=below_row - 1, count=len(hot),
                                             chars=sum(len(h.text) for h in hot))

    def add_buffered(self, agent_id: int, rows) -> None:
        load = self.load[agent_id]
        for row in rows:
            load.count += 1
            load.chars += len(row.text)

    def refresh(self) -> None:
        """Pick up summaries and dreams written by jobs since we last looked: one small query, and
        more only when something is new."""
        with connection.cursor() as cur:
            cur.execute("SELECT (SELECT MAX(id) FROM memory_summaries WHERE run_id = %s),"
                        " (SELECT MAX(id) FROM memory_dreams WHERE run_id = %s)", [self.run.pk, self.run.pk])
            top_summary, top_dream = cur.fetchone()
        if (top_summary or 0) > self.last_summary_id:
            self._new_summaries()
        if (top_dream or 0) > self.last_dream_id:
            self._new_dreams()

    def _new_summaries(self) -> None:
        new = list(MemorySummary.objects.filter(run=self.run, id__gt=self.last_summary_id)
                   .values_list("id", "agent_id"))
        if new:
            self.last_summary_id = max(i for i, _ in new)
            # Only what the context shows: the counters already counted these rows as covered.
            self._load_summaries(sorted({a for _, a in new} & set(self.load)))

    def _new_dreams(self) -> None:
        dreams = list(Dream.objects.filter(run=self.run, id__gt=self.last_dream_id).order_by("id"))
        for d in dreams:
            self.last_dream_id = d.id
            if d.agent_id in self.dream:
                self.dream[d.agent_id] = DreamLine(d.id, d.tick, d.text)
