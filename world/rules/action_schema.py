"""The six-key action contract as a JSON schema built for one agent and one turn. Pure.

A structured-output endpoint holds the model to it while it writes, which small local models need
to keep the contract. The schema is built from the same Situation that builds the prompt, so it
names nothing the prompt does not: at rung 0 people are "someone (unknown 2)" and items
"indistinct object 1", exactly as the prompt shows them. It narrows what the model can write; the
parser (world.rules.actions) still validates every answer.
"""
from __future__ import annotations

from world.rules.actions import KEYS, MAX_DURATION, VOLUMES
from world.rules.perception import Situation

def nameable_targets(situation: Situation, rooms: tuple[str, ...] = ()) -> list[str]:
    """What the agent can name right now, exactly as its prompt shows it: the people and items here,
    then the ways out and any other room in `rooms` (rooms its prompt names), never the room it
    stands in (moving there is an ACTION_FAIL)."""
    names = [label for label, _, _ in situation.people] + [label for label, _ in situation.things]
    for room in [p.name for p in situation.exits] + list(rooms):
        if room != situation.room.name and room not in names:
            names.append(room)
    return names


def rooms_named(text: str, room_names) -> tuple[str, ...]:
    """The rooms of the ship whose names a prompt's text contains, in the given order."""
    return tuple(name for name in room_names if name in text)


def action_schema(situation: Situation, allowed_actions: tuple[str, ...], rooms: tuple[str, ...] = ()) -> dict:
    """The JSON schema of one action answer: all six keys required, nothing else allowed."""
    targets = nameable_targets(situation, rooms)
    target = {"anyOf": [{"type": "string", "enum": targets}, {"type": "null"}]} if targets else {"type": "null"}
    return {
        "type": "object",
        "properties": {
            "action_type": {"type": "string", "enum": list(allowed_actions)},
            "target_character": target,
            "volume": {"anyOf": [{"type": "string", "enum": list(VOLUMES)}, {"type": "null"}]},
            "dialogue": {"type": "string"},
            "duration_minutes": {"type": "integer", "minimum": 1, "maximum": MAX_DURATION},
            "internal_monologue": {"type": "string"},
        },
        "required": list(KEYS),
        "additionalProperties": False,
    }
