"""The identity ladder: rungs as data, gates and capabilities as pure functions.

Every rung row says what it reveals (`knows`: facts from KNOWLEDGE), which actions it allows and
its gate. Nothing in the engine or the memory asks for a rung by its number: it asks
`knows(rungs, level, FACT)` or `action_allowed(...)`, so a scenario with another ladder (four rungs,
a rung that forbids attack) needs no code change."""
from __future__ import annotations

from dataclasses import dataclass

NAME_PROP = "name_prop"
FEAR_PROP = "fear_prop"

# What a rung can reveal. Each rung lists all it knows (not only what it adds to the rung below).
OWN_NAME = "own_name"  # the agent's display name: its identity, its name in memory calls
SETTING = "setting"  # the premise, the date and clock, the name of the place it woke in
ITEM_NAMES = "item_names"  # props by name (else "indistinct object N")
PEOPLE_NAMES = "people_names"  # people by name (else "someone (unknown N)"); trust calls; people in dreams
TRUST_LABELS = "trust_labels"  # the trust ledger's label beside each name
HISTORY = "history"  # its life on paper
FEAR = "fear"
SECRET = "secret"
KNOWLEDGE = (OWN_NAME, SETTING, ITEM_NAMES, PEOPLE_NAMES, TRUST_LABELS, HISTORY, FEAR, SECRET)


@dataclass(frozen=True)
class RungSpec:
    level: int
    name: str
    reveals: str
    allowed_actions: tuple[str, ...]
    gate_prop: str | None  # which of the agent's own props opens this rung
    min_ticks_since_previous: int = 0
    knows: frozenset[str] = frozenset()  # facts of KNOWLEDGE revealed at this rung


def rung_spec(rungs: tuple[RungSpec, ...], level: int) -> RungSpec:
    for spec in rungs:
        if spec.level == level:
            return spec
    raise KeyError(f"no rung {level}")


def knows(rungs: tuple[RungSpec, ...], level: int, fact: str) -> bool:
    """The one capability lookup: does an agent at `level` know `fact` (one of KNOWLEDGE)?"""
    return fact in rung_spec(rungs, level).knows


def newly_known(rungs: tuple[RungSpec, ...], level: int) -> frozenset[str]:
    """What reaching `level` reveals that the rung below did not."""
    below = next((r.knows for r in rungs if r.level == level - 1), frozenset())
    return rung_spec(rungs, level).knows - below


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
