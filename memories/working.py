"""WorkingMemory: what the context builder and the compaction check need of each agent's memory,
held in RunWorld so an action call costs no query: the compaction counters, the summaries (oldest
first) and the dreams its prompts may show.

Loaded when a chunk of ticks starts; every row the tick writes grows the counters, and a compaction
the tick asks for moves them on at once, as if done (`covered_below`: its rows are fixed by its
tick, memories.job_inputs), so they never depend on when a worker gets to a job.

What the memory jobs write shows by the record, not by when it was written: a summary, era or dream
shows in prompts of tick t when its `shown_from` <= t (its job's tick + SHOW_LAG), and a summary an
era folds stops showing when the era starts (`summaries_at`, `dream_at`). Before the engine builds
the prompts of tick t it calls `ready(t)` (one small query): the run's jobs asked at or before
t - SHOW_LAG are done then — by whoever did them, or here, now — and the rows that show from a tick
up to t are loaded. So a run whose jobs a memory worker does, late or early, killed or not, shows
the same rows at the same ticks as run_voyage doing them at each commit.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db import connection
from django.db.models import Count, F, Max, Q

from memories.attempts import catch_up_run
from memories.job_records import SHOW_LAG, Compaction
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
    shown_from: int = 0
    hidden_from: int | None = None  # the shown_from of the era that folds it, once one does

    def shown_at(self, tick: int) -> bool:
        return self.shown_from <= tick and (self.hidden_from is None or tick < self.hidden_from)


@dataclass(frozen=True)
class DreamLine:
    id: int
    tick: int
    text: str
    shown_from: int = 0


class WorkingMemory:
    def __init__(self, run, agent_ids):
        self.run = run
        self.agent_ids = list(agent_ids)
        self.load: dict[int, MemoryLoad] = {}
        # Each agent's summaries and eras that show at a tick up to `through` (less those folded
        # into an era that shows by the run's tick), oldest first; and its dreams that do (the
        # latest by the run's tick, and those after). `summaries_at` and `dream_at` pick what a
        # prompt of a tick shows: out of order, agents prompt at ticks of their own.
        self.summaries: dict[int, list[SummaryLine]] = {aid: [] for aid in self.agent_ids}
        self.dreams: dict[int, list[DreamLine]] = {aid: [] for aid in self.agent_ids}
        self.through: int | None = None  # rows that show from a tick up to this one are loaded
        self.ready_for: int | None = None  # the jobs the prompts up to this tick show are done
        self.behind = None  # the jobs being done on a thread of their own (memories.jobs.Behind), if any
        # The recalled blocks (memories.context.load_recalled): the rows' ids and their text, as the
        # agents' committed recall states name them; a function of committed rows, held to save a query.
        self.recalled: dict[int, Recalled] = {}
        # The pending jobs before the summaries: a worker finishing a job between the two reads
        # (its summaries and its row's delete commit together) is then seen in one or both, never in
        # neither — read the other way round, the counters would depend on when the job finished.
        owed = list(promised(PendingMemoryJob.objects.filter(run=run, job=Compaction.KIND)))
        covered = dict(MemorySummary.objects.filter(run=run, level=0).values("agent_id")
                       .annotate(m=Max("last_row")).values_list("agent_id", "m"))
        for aid, below in owed:
            covered[aid] = max(covered.get(aid) or 0, below - 1)
        with connection.cursor() as cur:  # one cursor, one statement: at 2,048 agents the ORM's work per query took seconds
            for aid in self.agent_ids:
                self.load[aid] = self._count(aid, covered.get(aid) or 0, cur)
        # Each agent's rows ever written: the number of its newest row (the cached layout's log names
        # the place of its recalled block by a row's number).
        self.rows: dict[int, int] = dict.fromkeys(self.agent_ids, 0)
        self.rows.update(Memory.objects.filter(agent_id__in=self.agent_ids).values("agent_id")
                         .annotate(n=Count("id")).values_list("agent_id", "n"))

    @staticmethod
    def _count(agent_id: int, covered_upto: int, cur=None) -> MemoryLoad:
        """The agent's rows after `covered_upto`: how many, and their characters."""
        if cur is None:
            with connection.cursor() as cur:
                return WorkingMemory._count(agent_id, covered_upto, cur)
        cur.execute(f"SELECT COUNT(id), SUM(LENGTH(text)) FROM {Memory._meta.db_table} WHERE agent_id = %s AND id > %s",
                    [agent_id, covered_upto])
        n, chars = cur.fetchone()
        return MemoryLoad(covered_upto=covered_upto, count=n or 0, chars=chars or 0)

    def _load_summaries(self, agent_ids) -> None:
        """The agents' summaries and eras that show from a tick up to `through`, less those folded
        into an era that shows by the run's tick (no prompt of an earlier tick is built any more)."""
        for aid in agent_ids:
            self.summaries[aid] = []
        if self.through is None:
            return
        rows = (MemorySummary.objects.filter(agent_id__in=list(agent_ids), shown_from__lte=self.through)
                .filter(Q(folded_into__isnull=True) | Q(folded_into__shown_from__gt=self.run.tick))
                .order_by("agent_id", "first_row", "level")
                .values_list("agent_id", "id", "level", "first_row", "last_row", "tick", "text", "shown_from",
                             F("folded_into__shown_from")))
        for aid, *fields in rows:
            self.summaries[aid].append(SummaryLine(*fields))

    def _load_dreams(self, low: int | None) -> None:
        """The dreams that show from a tick after `low` up to `through` (None: every one up to
        `through`, of which each agent keeps its latest)."""
        if low is None:  # each agent's latest by the run's tick (jobs write them in their ticks' order), and later ones
            low = min(self.run.tick, self.through)
            latest = (Dream.objects.filter(run=self.run, shown_from__lte=low).values("agent_id")
                      .annotate(m=Max("id")).values_list("m", flat=True))
            rows = Dream.objects.filter(Q(id__in=list(latest)) |
                                        Q(run=self.run, shown_from__gt=low, shown_from__lte=self.through))
        else:
            rows = Dream.objects.filter(run=self.run, shown_from__gt=low, shown_from__lte=self.through)
        held = {d.id for dreams in self.dreams.values() for d in dreams}
        for d in rows.order_by("id").only("id", "agent_id", "tick", "shown_from", "identity", "places", "people"):
            if d.agent_id in self.dreams and d.id not in held:
                self.dreams[d.agent_id].append(DreamLine(d.id, d.tick, d.text, d.shown_from))
        for aid, dreams in self.dreams.items():
            if len(dreams) > 1:  # those a later dream shows in place of from the run's tick on go
                dreams.sort(key=lambda d: (d.tick, d.id))
                last = max((i for i, d in enumerate(dreams) if d.shown_from <= self.run.tick), default=0)
                del dreams[:last]

    # --- what a prompt of a tick shows --------------------------------------------------------
    def summaries_at(self, agent_id: int, tick: int) -> list[SummaryLine]:
        """The summaries and eras a prompt of `tick` shows, oldest first."""
        self.load_through(tick)
        return [s for s in self.summaries.get(agent_id, ()) if s.shown_at(tick)]

    def dream_at(self, agent_id: int, tick: int) -> DreamLine | None:
        """The latest dream a prompt of `tick` shows."""
        self.load_through(tick)
        return next((d for d in reversed(self.dreams.get(agent_id, ())) if d.shown_from <= tick), None)

    def ready(self, tick: int, gateway=None) -> None:
        """Before the prompts of `tick`: the run's memory jobs asked at or before tick - SHOW_LAG done
        (here, on `gateway`, those no process has done; waiting for one another process is doing),
        and what shows from a tick up to `tick` loaded. One query when nothing is owed or new."""
        if self.ready_for is not None and tick <= self.ready_for:
            return
        self.ready_for = tick
        self.wait_for_jobs(tick - SHOW_LAG)
        with connection.cursor() as cur:
            cur.execute("SELECT MIN(tick) FROM memory_jobs_pending WHERE run_id = %s AND job <> ''", [self.run.pk])
            (owed,) = cur.fetchone()
        if owed is not None and owed <= tick - SHOW_LAG and \
                catch_up_run(self.run.pk, before_tick=tick - SHOW_LAG + 1, gateway=gateway):
            if self.through is not None:  # what they wrote shows from owed + SHOW_LAG: look from there again
                self.through = min(self.through, owed + SHOW_LAG - 1)
        self.load_through(tick)

    def wait_for_jobs(self, through: int | None = None) -> None:
        """Until the jobs asked at ticks up to `through` (all, without) that a thread of this process
        is doing are done: whoever reads what they write, or would do them itself, comes after."""
        if self.behind is not None:
            self.behind.wait(through)

    def load_through(self, tick: int) -> None:
        """Load what shows from a tick up to `tick`, as far as it is written (`ready` first makes
        sure it all is)."""
        if self.through is not None and tick <= self.through:
            return
        low, self.through = self.through, tick
        if low is None:
            self._load_summaries(self.agent_ids)
            self._load_dreams(None)
            return
        with connection.cursor() as cur:
            cur.execute("SELECT EXISTS (SELECT 1 FROM memory_summaries WHERE run_id = %s AND shown_from > %s"
                        " AND shown_from <= %s), EXISTS (SELECT 1 FROM memory_dreams WHERE run_id = %s"
                        " AND shown_from > %s AND shown_from <= %s)", [self.run.pk, low, tick] * 2)
            new_summaries, new_dreams = cur.fetchone()
        if new_summaries:
            agents = (MemorySummary.objects.filter(run=self.run, shown_from__gt=low, shown_from__lte=tick)
                      .values_list("agent_id", flat=True).distinct())
            # Each such agent's whole list again: an era also hides what it folds.
            self._load_summaries(sorted(set(agents) & set(self.summaries)))
        if new_dreams:
            self._load_dreams(low)

    # --- the tick's side --------------------------------------------------------------------
    def grow(self, agent_id: int, chars: int) -> None:
        load = self.load[agent_id]
        load.count += 1
        load.chars += chars
        self.rows[agent_id] += 1

    def recount(self, agent_id: int) -> MemoryLoad:
        """Counters for one agent from the database (its committed rows): after a compaction, or to
        see whether a queued job has finished. Rows buffered in the current tick are added back."""
        owed = list(promised(PendingMemoryJob.objects.filter(run=self.run, job=Compaction.KIND, agent_id=agent_id)))
        covered = (MemorySummary.objects.filter(agent_id=agent_id, level=0).aggregate(m=Max("last_row"))["m"] or 0)
        for _, below in owed:  # read before the summaries, as in __init__
            covered = max(covered, below - 1)
        fresh = self._count(agent_id, covered)
        self.load[agent_id] = fresh
        self._load_summaries([agent_id])
        return fresh

    def covered_below(self, agent_id: int, below, hot) -> None:
        """A compaction asked to cover the agent's rows before `below`, the first of its hot window
        `hot` (0 if empty): from now on only the window is uncovered. `below` is the row's id, or its
        line (HotLine) while its id may not be known: a row not yet inserted is after every row a
        summary covers, and the id joins the counters with the commit (`covered_upto`)."""
        load = self.load[agent_id]
        row_id = below if isinstance(below, int) else below.id
        if row_id is None or row_id - 1 > load.covered_upto:
            self.load[agent_id] = MemoryLoad(covered_upto=load.covered_upto if row_id is None else row_id - 1,
                                             count=len(hot), chars=sum(len(h.text) for h in hot))

    def covered_upto(self, agent_id: int, below_row: int) -> None:
        """The commit of a compaction `covered_below` counted: its rows before `below_row` are covered."""
        load = self.load[agent_id]
        load.covered_upto = max(load.covered_upto, below_row - 1)

    def add_buffered(self, agent_id: int, rows) -> None:
        load = self.load[agent_id]
        for row in rows:
            load.count += 1
            load.chars += len(row.text)
