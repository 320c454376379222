"""Who must wait for whom before a tick: the rule an out-of-order schedule would run on. Pure.

Read off the engine's rules (voyage/engine/resolve.py), what an agent's turn can change for another:
- a move takes the mover one exit along its path (`hop`); the people in the room it leaves and in the
  room it enters see it go and arrive;
- words (`communicate`) reach the speaker's room and the rooms one exit away, and no further (the
  acoustic matrix then decides who makes them out);
- interact, attack, sleep and collapse reach the people in the actor's own room.
So whatever an agent does in a tick lands in a room it stood in that tick or one exit from it, and an
agent notices only what lands in a room it stands in. Agent A's next prompt can depend on agent B's
turn only if a room B stood in is the same as, or one exit from, a room A stood in.

Where B stood is known once B's turn is known: the rooms of its walk, or its own room. While B's call
is still out, B may yet move: it may stand in any room one exit from its own. An agent walking on
(no call) goes to the next room of its path; one asleep, busy or collapsing stays put.

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
    rooms: frozenset[int]
    known: bool


def turn_of(start: int, neighbours: Mapping[int, Sequence[int]], *, pending: bool,
            walk: Sequence[int] = ()) -> Turn:
    """An agent's turn as far as it is known. `pending`: its call for this tick is still out (it may
    stay or go one exit any way). `walk`: the rooms it went through, once known (a hop, a move)."""
    if pending:
        return Turn(frozenset((start, *neighbours.get(start, ()))), known=False)
    return Turn(frozenset((start, *walk)), known=True)


def within_reach(a: Turn, b: Turn, neighbours: Mapping[int, Sequence[int]]) -> bool:
    """Can either turn change what the other agent perceives? (Same room, or one exit apart.)"""
    for room in a.rooms:
        if room in b.rooms:
            return True
        if any(n in b.rooms for n in neighbours.get(room, ())):
            return True
    return False


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
