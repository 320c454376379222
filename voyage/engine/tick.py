"""One tick: the nine steps, in their one order (world/time.py says which fire at a tick). Read top to bottom.

run_tick computes a tick on the in-memory world and returns its TickWriter; the caller commits it
(writer.commit) together with the run's tick counter.
"""
from __future__ import annotations

import hashlib

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
    if not is_overnight(plan.tick):                # what the memory jobs asked SHOW_LAG ticks ago and before
        world.memory.ready(plan.tick, gateway)     # wrote (done here if no worker has): prompts show it now

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
    """Living agents sorted by their place in this tick (`place`): each agent's place comes from a
    seeded hash of the run's seed, the tick and its own persona key, so it does not depend on who
    else is alive — an agent that has run ahead of a death elsewhere still knows where it stands."""
    return [a.id for a in sorted(world.living(), key=lambda a: place(world.seed, tick, a.persona.key))]


def place(seed: int, tick: int, persona_key: str) -> tuple[bytes, str]:
    """An agent's key in the tick's acting order: smaller acts first (the persona key breaks the
    tie a hash collision would leave)."""
    return hashlib.sha256(f"{seed}:{tick}:order:{persona_key}".encode()).digest()[:8], persona_key
