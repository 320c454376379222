"""Perception per rung: what an agent sees of its room, and how its words name things. Pure.

What the agent's rung knows (world.rules.ladder.KNOWLEDGE) decides: without PEOPLE_NAMES people are
"someone (unknown N)", without ITEM_NAMES items are "indistinct object N"; with TRUST_LABELS a
person's name carries the trust ledger's label.
"""
from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from world.rules.actions import Action, ActionFail
from world.rules.ladder import ITEM_NAMES, PEOPLE_NAMES, TRUST_LABELS


@dataclass(frozen=True)
class Person:
    agent_id: int
    display_name: str
    asleep: bool = False
    label: str | None = None  # relationship label from the trust ledger


@dataclass(frozen=True)
class Thing:
    prop_id: int
    name: str


@dataclass(frozen=True)
class Place:
    room_id: int
    name: str


@dataclass(frozen=True)
class Situation:
    agent_id: int
    rung: int
    knows: frozenset[str]  # what the agent's rung knows (world.rules.ladder.KNOWLEDGE)
    room: Place
    room_description: str
    scale: str
    ambient_noise: str
    people: tuple[tuple[str, str, int], ...]  # (name to use as a target, text as shown, agent id)
    things: tuple[tuple[str, int], ...]  # (label as shown, prop id)
    exits: tuple[Place, ...]
    # lowercased name -> (kind, id): what is here, over the rooms' names shared by every agent
    targets: Mapping = field(default_factory=dict, compare=False)


def rooms_as_targets(rooms_by_name: Mapping[str, int]) -> dict[str, tuple[str, int]]:
    """Every room as a target by its lowercased name: the same for every agent, so built once."""
    return {name.lower(): ("room", rid) for name, rid in rooms_by_name.items()}


def perceive(
    *,
    agent_id: int,
    rung: int,
    knows: frozenset[str],
    room: Place,
    room_description: str,
    scale: str,
    ambient_noise: str,
    people: Sequence[Person],
    things: Sequence[Thing],
    exits: Sequence[Place],
    rooms_by_name: Mapping[str, int],
    room_targets: Mapping[str, tuple[str, int]] | None = None,
) -> Situation:
    """The agent's view of its room. `people` excludes the agent; order is kept. `room_targets`:
    rooms_as_targets(rooms_by_name), when the caller shares one among many agents.

    The targets are the room's own names layered over the shared room names (a ChainMap: writes go
    to the top layer, lookups fall through), so a situation holds what is here, not the whole map."""
    shared = rooms_as_targets(rooms_by_name) if room_targets is None else room_targets
    targets: ChainMap = ChainMap({}, shared)
    shown_people = []
    for n, person in enumerate(people, start=1):
        if PEOPLE_NAMES in knows:
            label = person.display_name
        else:
            label = f"someone (unknown {n})"
        targets[label.lower()] = ("person", person.agent_id)
        targets.setdefault(person.display_name.lower(), ("person", person.agent_id))
        shown = label
        if TRUST_LABELS in knows and person.label:
            shown = f"{label} ({person.label})"
        if person.asleep:
            shown += ", asleep"
        shown_people.append((label, shown, person.agent_id))
    shown_things = []
    for n, thing in enumerate(things, start=1):
        label = thing.name if ITEM_NAMES in knows else f"indistinct object {n}"
        targets[label.lower()] = ("prop", thing.prop_id)
        shown_things.append((label, thing.prop_id))
    return Situation(
        agent_id=agent_id,
        rung=rung,
        knows=knows,
        room=room,
        room_description=room_description,
        scale=scale,
        ambient_noise=ambient_noise,
        people=tuple(shown_people),
        things=tuple(shown_things),
        exits=tuple(exits),
        targets=targets,
    )


def render_situation(s: Situation) -> str:
    lines = [f"You are in the {s.room.name} ({s.scale}, {'noisy' if s.ambient_noise == 'high' else 'quiet'}). {s.room_description}"]
    if s.people:
        lines.append("People here: " + "; ".join(shown for _, shown, _ in s.people) + ".")
    else:
        lines.append("Nobody else is here.")
    if s.things:
        if ITEM_NAMES in s.knows:
            lines.append("Items here: " + ", ".join(label for label, _ in s.things) + ".")
        else:
            lines.append(f"{len(s.things)} indistinct objects: " + ", ".join(label for label, _ in s.things) + ".")
    else:
        lines.append("No objects you could examine.")
    lines.append("Ways out: " + ", ".join(p.name for p in s.exits) + ".")
    return "\n".join(lines)


# What each action type may name, in the order the engine resolves it.
TARGET_KINDS = {
    "move": ("room",),
    "interact": ("prop", "person"),
    "attack": ("person",),
    "communicate": ("person",),
    "sleep": (),
}


def resolve_target(s: Situation, action: Action, room_kind: str = "a room of this place"
                   ) -> tuple[str, int] | None | ActionFail:
    """The (kind, id) an action names, None when it names nothing it needs, or an ActionFail
    (`room_kind`: what the world calls one of its rooms, its voice's room_kind)."""
    kinds = TARGET_KINDS[action.action_type]
    if not kinds or action.target is None:
        return None
    found = s.targets.get(action.target.lower())
    if found is None or found[0] not in kinds:
        what = " or ".join({"room": room_kind, "prop": "an object here", "person": "a person here"}[k] for k in kinds)
        return ActionFail(f"unknown target {action.target!r}: {action.action_type} needs {what}")
    if found == ("room", s.room.room_id):
        return ActionFail(f"you are already in the {s.room.name}")
    return found
