"""Who must wait for whom before a tick: the rule an out-of-order schedule would run on. Pure.

Read off the engine's rules (voyage/engine/resolve.py, world/rules/acoustics.py), the rooms an
agent's turn can touch, that is where someone may notice it:
- a move (or a walk on) takes it one exit along its path: the people in the room it leaves and in
  the room it enters see it go and arrive;
- a shout carries into the adjacent rooms whose ambient noise is low; any other words, and interact,
  attack, sleep or a collapse, reach only the people in its own room.
An agent notices only what lands in a room it stands in. So agent A's next prompt can depend on
agent B's turn only if a room B's turn touched is a room A stood in that tick (or the other way
round, which decides who resolves first).

While B's call is still out, B may yet go one exit any way or shout: its turn may touch its own room
and every room one exit from it. Once its answer is in, what it touched is known.

Some steps involve everyone and stay barriers: nightfall, the wind-down cue, the dawn bulletin, the
spouse collision, the overnight ticks, a tick where interventions wait, and any tick at which someone
alone in a private room could reach the attrition threshold (the rumour goes to every living agent).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence


@dataclass(frozen=True)
class Turn:
    """Where an agent stands during one tick: every room it may stand in, and whether that is final
    (its answer is in, or it makes no call) or only what is possible while its call is out."""
    start: int  # where it stood when the tick began
    rooms: frozenset[int]  # where it stood during the tick
    touches: frozenset[int]  # where someone may notice what it did
    known: bool


def turn_of(start: int, neighbours: Mapping[int, Sequence[int]], *, pending: bool,
            walk: Sequence[int] = (), shout_into: Sequence[int] = ()) -> Turn:
    """An agent's turn as far as it is known. `pending`: its call for this tick is still out (it may
    stay, go one exit any way, or shout). `walk`: the rooms it walked into, once known; `shout_into`:
    the rooms its shout carried into (the adjacent rooms of low ambient noise), if it shouted."""
    if pending:
        near = frozenset((start, *neighbours.get(start, ())))
        return Turn(start, near, near, known=False)
    rooms = frozenset((start, *walk))
    return Turn(start, rooms, rooms | frozenset(shout_into), known=True)


def within_reach(a: Turn, b: Turn, neighbours: Mapping[int, Sequence[int]] | None = None) -> bool:
    """Can either turn change what the other agent perceives, or how its turn resolves?"""
    return bool(a.rooms & b.touches or b.rooms & a.touches)


def barrier(plan, *, overnight: bool, interventions_due: bool, attrition_due: bool) -> str | None:
    """Why a tick must be taken by everyone together (lock-step), or None. `plan` is world.time.TickPlan."""
    if overnight:
        return "overnight"
    if plan.spouse_collision:
        return "spouse collision"
    if plan.wind_down:
        return "wind-down cue"
    if plan.nightfall:
        return "nightfall"
    if plan.bulletin:
        return "bulletin"
    if interventions_due:
        return "interventions"
    if attrition_due:
        return "attrition rumour"
    return None


def attrition_possible(attrition: int, ticks_ahead: int, threshold: int) -> bool:
    """Could an agent whose attrition counter stands at `attrition` reach `threshold` within the next
    `ticks_ahead` ticks (one a tick while it stays alone)?"""
    return attrition + ticks_ahead >= threshold
