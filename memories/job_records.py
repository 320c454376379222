"""A memory job as a named record: one frozen dataclass per kind (a compaction, a tick's dreams),
built by the engine, stored in its pending row (`memory_jobs_pending`) with its tick and agent as
columns and the rest serialised by key, and read back from the row whoever does it.

A kind is done by the module that writes its memory (memories/compaction.py, memories/dreams.py),
which registers its function here (`register`); memories.attempts dispatches through `DOERS`, so no
job module imports the dispatcher back. memories/apps.py imports the job modules once Django is
ready, so every process that does jobs has them all."""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Callable, ClassVar

from memories.models import PendingMemoryJob

# A job asked at tick T shows in prompts (and nowhere sooner) from tick T + SHOW_LAG: the rows it
# writes carry that tick (`shown_from`), and before the engine builds a prompt of tick t it makes
# sure every job asked at or before t - SHOW_LAG is done, doing it itself if no worker has
# (memories.working.WorkingMemory.ready). So what a prompt shows is fixed by the record and the
# tick, whoever does the job and whenever: run_voyage doing it at the commit, a memory worker
# minutes later, a resumed run. 9 ticks (27 simulated minutes): more than the out-of-order
# schedule's largest run_ahead (voyage.models.MAX_RUN_AHEAD, 8), so an agent running ahead seldom
# waits for a commit before its prompt; and no more than a dreaming sleep is long (30 minutes, 10
# ticks, from the tick before the one its Dreams job names), so a dream still shows on waking.
SHOW_LAG = 9


def shown_from(tick: int) -> int:
    """The first tick whose prompts show what a job asked at `tick` writes."""
    return tick + SHOW_LAG


@dataclass(frozen=True)
class Compaction:
    """Summarise the agent's rows older than its hot window (and fold eras). Completed at its
    tick's commit (memories.job_inputs) with the first row of the window then, and its rung."""
    KIND: ClassVar[str] = "compact_agent"  # the name rows stored before records already carry
    run_id: int
    agent_id: int
    tick: int
    below_row: int | None = None
    rung: int | None = None

    @property
    def name(self) -> str:
        return f"{compaction_prefix(self.run_id, self.agent_id)}{self.tick}"

    def inputs(self) -> dict:
        return {"below_row": self.below_row, "rung": self.rung}

    @property
    def shown_from(self) -> int:
        return shown_from(self.tick)


@dataclass(frozen=True)
class Sleeper:
    """One dreamer of a Dreams job: when its sleep began, and (fixed at commit) its newest row then,
    its rung, and whom it had judged: ((name, label, score), ...)."""
    agent_id: int
    slept_since: int
    upto_row: int | None = None
    rung: int | None = None
    people: tuple | None = None


@dataclass(frozen=True)
class Dreams:
    """The dreams of everyone who fell asleep for 30+ minutes at one tick."""
    KIND: ClassVar[str] = "dreams"
    run_id: int
    tick: int
    sleepers: tuple[Sleeper, ...]

    @property
    def name(self) -> str:
        return f"dreams-{self.run_id}-{self.tick}"

    @property
    def agent_id(self) -> None:
        return None  # a job for several agents: its row names none

    def inputs(self) -> dict:
        return {"sleepers": [asdict(s) for s in self.sleepers]}

    @property
    def shown_from(self) -> int:
        return shown_from(self.tick)

    @classmethod
    def asked(cls, run_id: int, tick: int, sleepers) -> "Dreams":
        """From [(agent id, tick its sleep began), ...] or [Sleeper, ...] (fixed already, or not)."""
        return cls(run_id, tick, tuple(sorted((s if isinstance(s, Sleeper) else Sleeper(*s) for s in sleepers),
                                              key=lambda s: (s.agent_id, s.slept_since))))


MemoryJob = Compaction | Dreams
KINDS: dict[str, type] = {Compaction.KIND: Compaction, Dreams.KIND: Dreams}
DOERS: dict[str, Callable] = {}  # kind -> do(record, gateway=..., attempt=...): filled by `register`


def register(kind: type, do: Callable) -> None:
    DOERS[kind.KIND] = do


def doer(job: MemoryJob) -> Callable:
    if job.KIND not in DOERS:
        raise LookupError(f"no module does memory jobs of kind {job.KIND!r}: memories/apps.py imports those that do")
    return DOERS[job.KIND]


def compaction_prefix(run_id: int, agent_id: int) -> str:
    return f"{Compaction.KIND}-{run_id}-{agent_id}-"


# --- the pending row ----------------------------------------------------------------------------
def row_of(job: MemoryJob) -> PendingMemoryJob:
    return PendingMemoryJob(run_id=job.run_id, name=job.name[:100], job=job.KIND, tick=job.tick,
                            agent_id=job.agent_id, inputs=job.inputs())


ROW_FIELDS = ("job", "run_id", "tick", "agent_id", "inputs")


def from_row(kind: str, run_id: int, tick: int, agent_id: int | None, inputs: dict) -> MemoryJob | None:
    """The record a row holds (None for a row older than the job field: nothing to do)."""
    if kind == Compaction.KIND:
        return Compaction(run_id, agent_id, tick, **inputs)
    if kind == Dreams.KIND:
        return Dreams(run_id, tick, tuple(_sleeper(s) for s in inputs["sleepers"]))
    return None


def _sleeper(fields: dict) -> Sleeper:
    people = fields.get("people")
    return replace(Sleeper(**{**fields, "people": None}),
                   people=None if people is None else tuple(tuple(p) for p in people))


def record(jobs: list[MemoryJob]) -> None:
    """Write the jobs' pending rows: called inside the transaction of the tick that asks for them."""
    PendingMemoryJob.objects.bulk_create([row_of(job) for job in jobs])


def unfinished(run_id: int) -> list[MemoryJob]:
    """The recorded jobs of a run that no memory worker was given and no batch runner finished, in
    the order their ticks asked for them."""
    rows = (PendingMemoryJob.objects.filter(run_id=run_id, queued=False).exclude(job="")
            .order_by("id").values_list(*ROW_FIELDS))
    return [from_row(*row) for row in rows]


def pending(run_id: int) -> int:
    return PendingMemoryJob.objects.filter(run_id=run_id).count()


def owed_before(run_id: int, tick: int | None = None) -> list[str]:
    """The names of the run's pending jobs asked for by ticks before `tick` (all, without one), in
    the order their ticks asked for them."""
    rows = PendingMemoryJob.objects.filter(run_id=run_id)
    if tick is not None:
        rows = rows.filter(tick__lt=tick)
    return list(rows.order_by("id").values_list("name", flat=True))
