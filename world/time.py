"""Time aboard: ticks, days and the simulated clock, and which of the nine steps of a tick fire at a
given tick. Pure.

A tick is 3 simulated minutes; a day is 480 ticks (tick 0 of a day is dawn, 06:00): 320 active,
then nightfall and 160 overnight ticks. The first three steps of a tick use the tick as it was;
step 4 increments it and the rest use the new number.
"""
from __future__ import annotations

from dataclasses import dataclass

MINUTES_PER_TICK = 3
TICKS_PER_DAY = 480
WIND_DOWN = 309
NIGHTFALL = 319
DIGEST_EVERY = 10
DAWN_HOUR = 6
DEFAULT_REFLECTION_TICKS = (15, 30, 45, 60)


# --- the clock ------------------------------------------------------------------------------
def day_of(tick: int) -> int:
    return tick // TICKS_PER_DAY + 1


def minutes_since_dawn(tick: int) -> int:
    return (tick % TICKS_PER_DAY) * MINUTES_PER_TICK


def time_of_day(tick: int) -> str:
    """'14:33'."""
    minutes = minutes_since_dawn(tick) + DAWN_HOUR * 60
    return f"{minutes // 60 % 24:02d}:{minutes % 60:02d}"


def sim_clock(tick: int) -> str:
    """'Day 2, 14:33': the simulated clock, for dashboards, prompts and transcripts."""
    return f"Day {day_of(tick)}, {time_of_day(tick)}"


def part_of_day(tick: int) -> str:
    """What an agent that cannot read a clock (rung 0) can tell of the hour."""
    minutes = minutes_since_dawn(tick)
    return "morning" if minutes < 360 else "afternoon" if minutes < 660 else "evening"


def is_overnight(tick: int) -> bool:
    """After nightfall and before dawn: no model calls happen at these ticks."""
    return tick % TICKS_PER_DAY > NIGHTFALL


def next_dawn(tick: int) -> int:
    return (tick // TICKS_PER_DAY + 1) * TICKS_PER_DAY


def busy_ticks(duration_minutes: int) -> int:
    """How many ticks an action keeps its agent busy (at least the current one)."""
    return max(1, -(-duration_minutes // MINUTES_PER_TICK))


# --- the steps that fire at a tick ----------------------------------------------------------
@dataclass(frozen=True)
class TickPlan:
    tick: int  # the tick as steps 1-3 see it
    new_tick: int  # the tick as steps 5-9 see it
    spouse_collision: bool
    scheduled_reflection: bool
    wind_down: bool
    nightfall: bool
    digest: bool
    bulletin: bool


def plan_tick(tick: int, reflection_ticks: tuple[int, ...] = DEFAULT_REFLECTION_TICKS) -> TickPlan:
    new = tick + 1
    of_day = new % TICKS_PER_DAY
    return TickPlan(
        tick=tick,
        new_tick=new,
        spouse_collision=tick == 1,
        scheduled_reflection=of_day in reflection_ticks,
        wind_down=of_day == WIND_DOWN,
        nightfall=of_day == NIGHTFALL,
        digest=new % DIGEST_EVERY == 0,
        bulletin=new % TICKS_PER_DAY == 0,
    )
