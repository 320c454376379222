"""The ship as it was after any tick, folded from the event log. Pure.

A run starts with every agent asleep in its home room at rung 0, alive (voyage.engine.runner.
create_run). From then on only events change who is where and how: `move` (the actor is now in
the event's room), `wake`, `sleep`, `nightfall` (every living agent asleep), `death` (the actor is
dead, and no longer asleep) and `rung` (data["rung"]).

"After tick N" means what a run stopped at tick N holds in agent_state: the effect of its first N
committed ticks. The tick that commits as N carries events of two numbers: its steps 1-3 (actions,
attrition) carry N-1, its steps 5-9 (reflections, wind-down, nightfall, bulletin: LATE_KINDS)
carry N, the tick number after step 4 (voyage/engine/tick.py).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

LATE_KINDS = frozenset({"reflection", "wind_down", "nightfall", "bulletin"})
STATE_KINDS = ("move", "wake", "sleep", "nightfall", "death", "rung")


@dataclass(frozen=True)
class AgentAt:
    room: str
    asleep: bool = True
    alive: bool = True
    rung: int = 0


@dataclass(frozen=True)
class LoggedEvent:
    tick: int
    kind: str
    actor: str | None  # persona key
    room: str | None  # room key
    data: dict


def committed_as(tick: int, kind: str) -> int:
    """The number of the tick whose commit wrote an event of this tick number and kind."""
    return tick if kind in LATE_KINDS else tick + 1


def start_of_run(homes: dict[str, str]) -> dict[str, AgentAt]:
    """agent key -> home room key: everyone asleep at home, rung 0."""
    return {agent: AgentAt(room=home) for agent, home in homes.items()}


def apply(ship: dict[str, AgentAt], e: LoggedEvent) -> None:
    if e.kind == "nightfall":
        for agent, at in ship.items():
            if at.alive:
                ship[agent] = replace(at, asleep=True)
        return
    at = ship.get(e.actor) if e.actor else None
    if at is None:
        return
    if e.kind == "move":
        ship[e.actor] = replace(at, room=e.room)
    elif e.kind == "wake":
        ship[e.actor] = replace(at, asleep=False)
    elif e.kind == "sleep":
        ship[e.actor] = replace(at, asleep=True)
    elif e.kind == "death":
        ship[e.actor] = replace(at, alive=False, asleep=False)
    elif e.kind == "rung":
        ship[e.actor] = replace(at, rung=int(e.data["rung"]))


def ship_after(homes: dict[str, str], events: Iterable[LoggedEvent], tick: int) -> dict[str, AgentAt]:
    """Every agent as it was once `tick` ticks had committed. `events` in seq order; any event of a
    later commit is ignored, so the caller may pass all events up to tick number `tick`."""
    ship = start_of_run(homes)
    for e in events:
        if committed_as(e.tick, e.kind) <= tick:
            apply(ship, e)
    return ship
