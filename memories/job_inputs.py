"""What a memory job will read, fixed when its tick commits, so that its result depends only on its
tick — not on when a worker gets to it, nor on what the run did in the meantime.

Called inside the tick's transaction once its rows are inserted (their ids known):
- a compaction covers the agent's uncovered rows before its hot window as the tick leaves it: the
  first row of that window (`below_row`) is recorded, with the agent's rung;
- a dream reads the sleeper's rows up to its newest one then (`upto_row`), with its rung and whom it
  had judged then (the trust ledger moves on while it sleeps, and a worker may come late).
The tick's own compaction counters are moved on at once as if the job were done (`promise`), so the
next job is asked for at the same tick whether or not this one has finished.
"""
from __future__ import annotations

from memories.context import hot_window
from memories.dreams import people_judged
from memories.jobs import MemoryJob


def fix_inputs(jobs: list[MemoryJob], world) -> list[MemoryJob]:
    return [_fixed(job, world) for job in jobs]


def _fixed(job: MemoryJob, world) -> MemoryJob:
    if job.job == "compact_agent":
        run_id, agent_id, tick = job.args[:3]
        agent = world.agents[agent_id]
        return job.with_args(run_id, agent_id, tick, hot_start(world, agent), agent.rung)
    if job.job == "dreams":
        run_id, sleepers = job.args[:2]
        people = people_judged(world, [aid for aid, _ in sleepers])
        return job.with_args(run_id, [[aid, began, newest_row(world, aid), world.agents[aid].rung, people[aid]]
                                      for aid, began in sleepers])
    return job


def hot_start(world, agent) -> int:
    """The id of the oldest row in the agent's hot window (its rows are inserted: ids known)."""
    hot = hot_window(world, agent)
    return hot[0].id if hot else 0


def newest_row(world, agent_id: int) -> int:
    hot = world.hot[agent_id]
    return hot[-1].id if hot else 0


def promise(jobs: list[MemoryJob], world) -> None:
    """After the commit: each agent asked to compact counts as compacted up to its hot window."""
    for job in jobs:
        if job.job == "compact_agent":
            agent = world.agents[job.args[1]]
            world.memory.covered_below(agent.id, job.args[3], hot_window(world, agent))
