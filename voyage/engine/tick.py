"""One tick: the nine steps, in the order of the spec. Read top to bottom.

run_tick computes a tick on the in-memory world and returns its TickWriter; the caller commits it
(writer.commit) together with the run's tick counter.
"""
from __future__ import annotations

import random

from memories.dreams import queue_dreams
from voyage.engine import steps
from voyage.engine.world import RunWorld
from voyage.engine.writer import TickWriter
from voyage.gateway.base import Gateway
from world.time import is_overnight, plan_tick


def run_tick(world: RunWorld, gateway: Gateway) -> TickWriter:
    run = world.run
    plan = plan_tick(run.tick, run.reflection_schedule)
    w = TickWriter(world, plan.tick)
    if not is_overnight(plan.tick):
        world.memory.refresh()                     # summaries and dreams the memory jobs wrote meanwhile

    if plan.spouse_collision:                      # 1. spouse collision (tick == 1, one-shot)
        steps.spouse_collision(world, w)
    order = acting_order(world, plan.tick)         # 2. agent actions
    steps.wake_sleepers(world, w, order)
    if run.schedule == run.SIMULTANEOUS:
        steps.act_simultaneously(world, w, gateway, order)
    else:
        steps.act_sequentially(world, w, gateway, order)
    steps.social_attrition(world, w)               # 3. social attrition
    w.tick = plan.new_tick                         # 4. tick increment: the new tick from here on
    steps.reflections(world, w, gateway, plan)     # 5. reflections
    if plan.wind_down:                             # 6. wind-down cue
        steps.wind_down(world, w)
    if plan.nightfall:                             # 7. nightfall
        steps.nightfall(world, w)
        steps.night_thoughts(world, w, gateway)    #    diary entries and trust calls
    if plan.digest:                                # 8. digest (log only)
        steps.digest(world, w)
    if plan.bulletin:                              # 9. daily bulletin
        steps.bulletin(world, w, gateway)
    queue_dreams(world, w, plan)                   # sleepers of 30+ minutes dream (queued after commit)
    return w


def acting_order(world: RunWorld, tick: int) -> list[int]:
    """Living agents in a stable order (by persona key, the same in any database), shuffled by the
    run's seed for this tick."""
    ids = [a.id for a in sorted(world.living(), key=lambda a: a.persona.key)]
    random.Random(f"{world.seed}:{tick}:order").shuffle(ids)
    return ids
