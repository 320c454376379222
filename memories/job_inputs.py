"""What a memory job will read, fixed when its tick commits, so that its result depends only on its
tick — not on when a worker gets to it, nor on what the run did in the meantime.

Fixed as the commit reads the tick off the world (TickWriter.prepare), before its transaction: the
rows a job starts or ends at are named by their hot lines, which get their ids once the rows are
inserted (`with_row_ids`, inside the transaction):
- a compaction covers the agent's uncovered rows before its hot window as the tick leaves it: the
  first row of that window (`below_row`) is recorded, with the agent's rung;
- a dream reads the sleeper's rows up to its newest one then (`upto_row`), with its rung and whom it
  had judged then (the trust ledger moves on while it sleeps, and a worker may come late); out of
  order, each sleeper is fixed earlier, at its own last step of the tick (`fixed_sleeper`), to the
  same values.
The tick's own compaction counters are moved on at once as if the job were done (`promise`, as the
commit reads the tick; `promised_rows` once its rows have ids), so the next job is asked for at the
same tick whether or not this one has finished.
"""
from __future__ import annotations

from dataclasses import replace

from memories.context import hot_window
from memories.dreams import people_judged
from memories.job_records import Compaction, MemoryJob, Sleeper


def fix_inputs(jobs: list[MemoryJob], world, row_id=lambda line: line.id) -> list[MemoryJob]:
    """The jobs with what they will read. `row_id`: a hot line's row id; the tick's commit passes
    the lines themselves, while it reads the world, and puts their ids in once its rows are
    inserted (`with_row_ids`)."""
    return [_fixed(job, world, row_id) for job in jobs]


def with_row_ids(jobs: list[MemoryJob], row_id) -> list[MemoryJob]:
    """The jobs with each hot line fix_inputs left in them replaced by its row's id (`row_id`)."""
    def the_id(row):
        return row if row is None or isinstance(row, int) else row_id(row)
    return [replace(job, below_row=the_id(job.below_row)) if isinstance(job, Compaction) else
            replace(job, sleepers=tuple(replace(s, upto_row=the_id(s.upto_row)) for s in job.sleepers))
            for job in jobs]


def _fixed(job: MemoryJob, world, row_id) -> MemoryJob:
    if isinstance(job, Compaction):
        agent = world.agents[job.agent_id]
        return replace(job, below_row=hot_start(world, agent, row_id), rung=agent.rung)
    return replace(job, sleepers=tuple(s if s.upto_row is not None else fixed_sleeper(world, s, row_id)
                                       for s in job.sleepers))


def fixed_sleeper(world, sleeper: Sleeper, row_id=lambda line: line) -> Sleeper:
    """The dreamer with what its dream will read, as it stands now. The commit fixes it as it reads
    the tick; the out-of-order schedule fixes it at the sleeper's dreams step, the tick's last that
    reads or writes its rows, rung or ledger, so that the sleeper need not wait for the tick's commit
    to start the next (voyage/engine/ahead.py). A sleeper already fixed is kept as it is."""
    people = people_judged(world, [sleeper.agent_id])[sleeper.agent_id]
    return replace(sleeper, upto_row=newest_row(world, sleeper.agent_id, row_id),
                   rung=world.agents[sleeper.agent_id].rung, people=tuple(tuple(p) for p in people))


def hot_start(world, agent, row_id=lambda line: line.id) -> int:
    """The id of the oldest row in the agent's hot window (its rows are inserted: ids known)."""
    hot = hot_window(world, agent)
    return row_id(hot[0]) if hot else 0


def newest_row(world, agent_id: int, row_id=lambda line: line.id) -> int:
    hot = world.hot[agent_id]
    return row_id(hot[-1]) if hot else 0


def promise(jobs: list[MemoryJob], world) -> None:
    """As the tick's commit reads the world (fix_inputs' jobs, their rows not yet inserted): each agent
    asked to compact counts as compacted up to its hot window as the tick leaves it — what its next
    steps read (compaction_due_now, the recall's staleness), which may come before the rows are
    written (the out-of-order schedule). The row the summary ends before gets its id with the
    commit (`promised_rows`)."""
    for job in jobs:
        if isinstance(job, Compaction):
            agent = world.agents[job.agent_id]
            world.memory.covered_below(agent.id, job.below_row, hot_window(world, agent))


def promised_rows(jobs: list[MemoryJob], world) -> None:
    """Once the commit has given the tick's rows their ids (with_row_ids' jobs): the rows that the
    promised compactions cover, up to where each summary will end."""
    for job in jobs:
        if isinstance(job, Compaction):
            world.memory.covered_upto(job.agent_id, job.below_row)
