"""One tick in lock-step: the steps of the tick's table (world/rules/tick_order.py), in its one
order, each that fires for everyone. The out-of-order schedule (ahead.py) walks the same table.

run_tick computes a tick on the in-memory world and returns its TickWriter; the caller commits it
(writer.commit) together with the run's tick counter.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from memories.dreams import queue_dreams
from voyage.engine import steps
from voyage.engine.world import RunWorld
from voyage.engine.writer import TickWriter
from voyage.gateway.base import Gateway
from world.rules.tick_order import (ATTRITION, BULLETIN, CHECK, DIGEST, DREAMS, INCREMENT, NIGHTFALL, PROMPT, REFLECT,
                                    RESOLVE, SPOUSE_COLLISION, TICK, WAKE, WIND_DOWN)
from world.time import TickPlan, is_overnight, plan_tick


def run_tick(world: RunWorld, gateway: Gateway) -> TickWriter:
    run = world.run
    plan = plan_tick(run.tick, run.reflection_schedule)
    w = TickWriter(world, plan.tick)
    if not is_overnight(plan.tick):                # what the memory jobs asked SHOW_LAG ticks ago and before
        world.memory.ready(plan.tick, gateway)     # wrote (done here if no worker has): prompts show it now
    tick = LockStep(world, gateway, plan, w)
    for step in TICK:
        if step.fires_at(plan):
            LOCK_STEP[step.number](tick)
    return w


@dataclass
class LockStep:
    """One tick, as its steps take it for everyone: within a step, the agents in the tick's seeded
    order (`order`, from the wake on)."""
    world: RunWorld
    gateway: Gateway
    plan: TickPlan
    w: TickWriter
    order: list[int] = field(default_factory=list)
    deciding: list = field(default_factory=list)  # who makes an action call this tick (simultaneous)
    asked: dict = field(default_factory=dict)  # their prompts and calls (simultaneous)

    @property
    def simultaneous(self) -> bool:
        return self.world.run.schedule == self.world.run.SIMULTANEOUS


def _spouse_collision(t: LockStep) -> None:
    steps.spouse_collision(t.world, t.w)


def _wake(t: LockStep) -> None:
    t.order = acting_order(t.world, t.plan.tick)
    steps.wake_sleepers(t.world, t.w, t.order)


def _check(t: LockStep) -> None:
    if t.simultaneous:
        t.deciding = [t.world.agents[aid] for aid in t.order if steps.decides(t.world, t.world.agents[aid], t.w.tick)]
        steps.compaction_checks(t.world, t.w, t.gateway, t.deciding)


def _prompt(t: LockStep) -> None:
    if t.simultaneous:
        t.asked = steps.ask_all(t.world, t.gateway, t.deciding, t.w.tick)


def _resolve(t: LockStep) -> None:
    """Simultaneous: each answer in the seeded order. Sequential (the seed's schedule), one agent's
    compaction check, prompt and resolution go together, at its resolution's place: each sees what
    those before it did."""
    if t.simultaneous:
        steps.resolve_in_order(t.world, t.w, t.order, t.asked)
    else:
        steps.act_sequentially(t.world, t.w, t.gateway, t.order)


def _attrition(t: LockStep) -> None:
    steps.social_attrition(t.world, t.w)


def _increment(t: LockStep) -> None:
    t.w.tick = t.plan.new_tick  # the new tick from here on


def _reflect(t: LockStep) -> None:
    steps.reflections(t.world, t.w, t.gateway, t.plan)


def _wind_down(t: LockStep) -> None:
    steps.wind_down(t.world, t.w)


def _nightfall(t: LockStep) -> None:
    steps.nightfall(t.world, t.w)
    steps.night_thoughts(t.world, t.w, t.gateway)  # diary entries and trust calls


def _digest(t: LockStep) -> None:
    steps.digest(t.world, t.w)


def _bulletin(t: LockStep) -> None:
    steps.bulletin(t.world, t.w, t.gateway)


def _dreams(t: LockStep) -> None:
    queue_dreams(t.world, t.w, t.plan)  # sleepers of 30+ minutes dream (queued after commit)


# What each step of the table does for everyone (tests/world/test_tick_order.py: one per row).
LOCK_STEP = {SPOUSE_COLLISION: _spouse_collision, WAKE: _wake, CHECK: _check, PROMPT: _prompt, RESOLVE: _resolve,
             ATTRITION: _attrition, INCREMENT: _increment, REFLECT: _reflect, WIND_DOWN: _wind_down,
             NIGHTFALL: _nightfall, DIGEST: _digest, BULLETIN: _bulletin, DREAMS: _dreams}


def acting_order(world: RunWorld, tick: int) -> list[int]:
    """Living agents sorted by their place in this tick (`place`): each agent's place comes from a
    seeded hash of the run's seed, the tick and its own persona key, so it does not depend on who
    else is alive — an agent that has run ahead of a death elsewhere still knows where it stands."""
    return [a.id for a in sorted(world.living(), key=lambda a: place(world.seed, tick, a.persona.key))]


def place(seed: int, tick: int, persona_key: str) -> tuple[bytes, str]:
    """An agent's key in the tick's acting order: smaller acts first (the persona key breaks the
    tie a hash collision would leave)."""
    return hashlib.sha256(f"{seed}:{tick}:order:{persona_key}".encode()).digest()[:8], persona_key
