"""The identity ladder: rungs as data, gates as pure functions."""
from __future__ import annotations

from dataclasses import dataclass

NAME_PROP = "name_prop"
FEAR_PROP = "fear_prop"


@dataclass(frozen=True)
class RungSpec:
    level: int
    name: str
    reveals: str
    allowed_actions: tuple[str, ...]
    gate_prop: str | None  # which of the agent's own props opens this rung
    min_ticks_since_previous: int = 0


def rung_spec(rungs: tuple[RungSpec, ...], level: int) -> RungSpec:
    for spec in rungs:
        if spec.level == level:
            return spec
    raise KeyError(f"no rung {level}")


def action_allowed(rungs: tuple[RungSpec, ...], level: int, action_type: str) -> bool:
    return action_type in rung_spec(rungs, level).allowed_actions


def rung_after_interact(
    rungs: tuple[RungSpec, ...], level: int, reached_tick: int, tick: int, prop_role: str | None
) -> int | None:
    """The new level if interacting with one of the agent's own props (`prop_role`) at `tick` opens
    the next rung's gate; None otherwise. Only the next rung can open: rungs are climbed in order."""
    if prop_role is None:
        return None
    nxt = next((r for r in rungs if r.level == level + 1), None)
    if nxt is None or nxt.gate_prop != prop_role:
        return None
    if tick - reached_tick < nxt.min_ticks_since_previous:
        return None
    return nxt.level
