"""The six-key action contract as a JSON schema built for one agent and one turn. Pure.

A structured-output endpoint holds the model to it while it writes, which small local models need
to keep the contract. The schema is an `anyOf` of one branch per action the agent's rung allows,
each with `action_type` as a constant and only what that action can take:

- move: a room it can reach or name (the ways out, and the rooms its prompt names);
- interact: a person or an item here; attack: a person here;
- communicate: a person here with any volume, or nobody with normal or shout, and words to say;
- sleep: no target.

A branch with no possible target is left out. Only communicate takes a volume or dialogue (the
others have null and ""). It is built from the same Situation that builds the prompt, so it names
nothing the prompt does not: at rung 0 people are "someone (unknown 2)" and items "indistinct object
1", exactly as the prompt shows them.

What is said or thought is bounded by a `pattern`: one line of at most MAX_TEXT characters with no
control character, double quote or backslash. A pattern because llama.cpp's converter ignores
`maxLength` on a string that has a pattern, and its plain string rule admits raw control characters
(which strict JSON refuses); no quote or backslash because llama.cpp and outlines apply a pattern to the
string as written in JSON, jsonschema and the parser to its value, and only such a class means the
same in both. Durations are an enum (converters drop integer minimum/maximum). The parser
(world.rules.actions) still judges every answer. (Checked against llama-cpp-python 0.3.36:
tests/world/test_schema_grammar.py; against llguidance and outlines-core: tests/world/test_schema_engines.py.
OpenAI's strict mode refuses a root anyOf and `const`: world.rules.schema_dialects renders the same
contract in its dialect.)
"""
from __future__ import annotations

from world.rules.actions import DURATIONS, KEYS, MAX_TEXT, VOLUMES
from world.rules.names_in_text import NamesInText
from world.rules.perception import Situation

SAID_CHAR = r'[^"\\\x00-\x1f\x7f]'
DEFS = {  # each string rule once, shared by the branches (a converter writes each $def once)
    "said": {"type": "string", "pattern": f"^{SAID_CHAR}{{0,{MAX_TEXT}}}$"},
    # communicate: something to say, beginning with a character that is not a space
    "saying": {"type": "string", "pattern": rf'^[^"\\\x00-\x20\x7f]{SAID_CHAR}{{0,{MAX_TEXT - 1}}}$'},
}
SAID, SAYING = {"$ref": "#/$defs/said"}, {"$ref": "#/$defs/saying"}
NULL = {"type": "null"}


def rooms_in_reach(situation: Situation, rooms: tuple[str, ...] = ()) -> list[str]:
    """Where it can move: the ways out, then any other room in `rooms` (rooms its prompt names),
    never the room it stands in (moving there is an ACTION_FAIL)."""
    names = []
    for room in [p.name for p in situation.exits] + list(rooms):
        if room != situation.room.name and room not in names:
            names.append(room)
    return names


def people_here(situation: Situation) -> list[str]:
    return [label for label, _, _ in situation.people]


def nameable_targets(situation: Situation, rooms: tuple[str, ...] = ()) -> list[str]:
    """What the agent can name right now, exactly as its prompt shows it: the people and items here,
    then the rooms in reach."""
    names = people_here(situation) + [label for label, _ in situation.things]
    return names + [r for r in rooms_in_reach(situation, rooms) if r not in names]


def rooms_named(text: str, room_names) -> tuple[str, ...]:
    """The rooms of the scenario whose names a prompt's text contains, in the given order. `room_names`:
    the names, or a NamesInText of them (what the engine passes: its cost follows the text, not the
    number of rooms)."""
    if isinstance(room_names, NamesInText):
        found = room_names.found(text)
        return tuple(sorted(found, key=room_names.order.__getitem__))
    return tuple(name for name in room_names if name in text)


def action_schema(situation: Situation, allowed_actions: tuple[str, ...], rooms: tuple[str, ...] = ()) -> dict:
    """The JSON schema of one action answer: one branch per allowed action with a possible target,
    each with all six keys required and nothing else allowed."""
    branches = []
    for action_type in allowed_actions:
        branches += action_branches(action_type, situation, rooms)
    return {"$defs": DEFS, "anyOf": branches}


def action_branches(action_type: str, situation: Situation, rooms: tuple[str, ...] = ()) -> list[dict]:
    """The branches of one action type (communicate has two: to a person, to the room)."""
    if action_type == "communicate":
        to_person = _branch("communicate", people_here(situation), VOLUMES, SAYING)
        return to_person + _branch("communicate", None, ("normal", "shout"), SAYING)
    if action_type in AIMED:
        return _branch(action_type, _targets(action_type, situation, rooms))
    if action_type == "sleep":
        return _branch("sleep", None)
    return []


AIMED = ("move", "interact", "attack")  # the action types whose one branch names one of `_targets`


def _targets(action_type: str, situation: Situation, rooms: tuple[str, ...]) -> list[str]:
    """What an aimed action may name here: a room in reach, a person or item here, a person here."""
    if action_type == "move":
        return rooms_in_reach(situation, rooms)
    people = people_here(situation)
    return people + [label for label, _ in situation.things] if action_type == "interact" else people


def has_branch(action_type: str, situation: Situation, rooms: tuple[str, ...] = ()) -> bool:
    """Whether `action_branches` has a branch for the action type here, without building the branches:
    asked for every allowed action of every prompt (prompt_text.allowed_now). Communicate and sleep
    always have one (to the room; naming nobody); an aimed action, when it has something to name."""
    if action_type in AIMED:
        return bool(_targets(action_type, situation, rooms))
    return action_type in ("communicate", "sleep")


def _branch(action_type: str, targets: list[str] | None, volumes=None, dialogue=None) -> list[dict]:
    """One branch as a list: empty when the action names a target and none is possible."""
    if targets is not None and not targets:
        return []
    properties = {
        "action_type": {"type": "string", "const": action_type},
        "target_character": {"type": "string", "enum": targets} if targets is not None else NULL,
        "volume": {"type": "string", "enum": list(volumes)} if volumes else NULL,
        "dialogue": dialogue or {"type": "string", "const": ""},
        "duration_minutes": {"type": "integer", "enum": list(DURATIONS)},
        "internal_monologue": SAID,
    }
    return [{"type": "object", "properties": {k: properties[k] for k in KEYS}, "required": list(KEYS),
             "additionalProperties": False}]
