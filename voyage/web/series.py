"""The event log turned into series for the pictures: rungs over time, room occupancy over time,
and the trust ledger as it stood at a chosen tick. Pure: plain tuples in, plain data out, no ORM,
so each is tested on a few hand-built events.

An event here is `Ev(tick, kind, actor, data)` with `actor` a persona key (or None), the same
fields the event log stores.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, NamedTuple


class Ev(NamedTuple):
    tick: int
    kind: str
    actor: str | None
    data: dict


DEAD = "dead"


@dataclass(frozen=True)
class RungStep:
    """From `tick` on (until the next step), how many agents stand on each rung, and how many are dead."""
    tick: int
    counts: tuple[int, ...]
    dead: int


def rung_steps(agents: Iterable[str], levels: int, events: Iterable[Ev]) -> list[RungStep]:
    """Every agent starts alive on rung 0; a `rung` event moves its actor to `data["rung"]`, a
    `death` event takes its actor (the victim) out of the living. One step per tick that changed."""
    rung = {a: 0 for a in agents}
    dead: set[str] = set()
    steps = [_rung_step(0, rung, dead, levels)]
    for e in events:
        if e.kind == "rung" and e.actor in rung and e.actor not in dead:
            rung[e.actor] = int(e.data["rung"])
        elif e.kind == "death" and e.actor in rung:
            dead.add(e.actor)
        else:
            continue
        step = _rung_step(e.tick, rung, dead, levels)
        if steps[-1].tick == e.tick:
            steps[-1] = step
        else:
            steps.append(step)
    return steps


def _rung_step(tick: int, rung: dict[str, int], dead: set[str], levels: int) -> RungStep:
    living = Counter(r for a, r in rung.items() if a not in dead)
    return RungStep(tick, tuple(living.get(level, 0) for level in range(levels)), len(dead))


def occupancy(start: dict[str, str], events: Iterable[Ev], ticks: Iterable[int]) -> dict[str, list[int]]:
    """How many living agents each room held at each of `ticks` (ascending): `start` maps every
    agent to its room at tick 0; a `move` event puts its actor in `data["to"]` (one room per hop),
    a `death` takes its actor out. An agent's position at tick t includes every event of tick t."""
    where = dict(start)
    snapshots: list[Counter] = []
    pending = iter(events)
    event = next(pending, None)
    for t in ticks:
        while event is not None and event.tick <= t:
            if event.kind == "move" and event.actor in where:
                where[event.actor] = event.data["to"]
            elif event.kind == "death":
                where.pop(event.actor, None)
            event = next(pending, None)
        snapshots.append(Counter(where.values()))
    rooms = sorted(set(start.values()).union(*snapshots))
    return {room: [s.get(room, 0) for s in snapshots] for room in rooms}


class TrustRow(NamedTuple):
    agent: str
    other: str
    tick: int
    score: float
    label: str


def trust_at(history: Iterable[TrustRow], tick: int) -> dict[tuple[str, str], TrustRow]:
    """Each (agent, other) pair's last recorded trust at or before `tick`. History rows come in any
    order; among rows of the same tick, the later one in the input wins (the ledger's id order)."""
    state: dict[tuple[str, str], TrustRow] = {}
    for row in sorted(history, key=lambda r: r.tick):  # stable: same-tick rows keep their order
        if row.tick > tick:
            break
        state[(row.agent, row.other)] = row
    return state


def sample_ticks(end_tick: int, columns: int) -> list[int]:
    """At most `columns` evenly spaced ticks from 0 to end_tick, both included."""
    if end_tick <= 0:
        return [0]
    columns = max(2, min(columns, end_tick + 1))
    return sorted({round(i * end_tick / (columns - 1)) for i in range(columns)})
