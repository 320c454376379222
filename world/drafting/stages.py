"""The stages a world is drafted in, each answered as one JSON object under a schema derived from
the scenario format (world/scenarios/file_format.py), and how their answers make one file. Pure.

premise (slug, name, start date, premise, voice) -> rooms (and exits) -> personas (homes, spouses)
-> props -> rungs -> phrasebook. Each stage is shown the answers before it, and its schema lists
the keys they made (a home, a prop's room, its owner are enums of them), so names agree.

One schema serves both dialects (world/rules/schema_dialects.py): it keeps OpenAI's strict rules
(every object closed, every key required, a null written as anyOf [..., null], no `const`), which
the grammar engines (llama.cpp, vLLM, SGLang) take as they are; a `pattern` holds a name to one line
with no quote or backslash, and carries no minLength beside it (vLLM refuses the two together).
"""
from __future__ import annotations

import re

from world.rules.actions import ACTION_TYPES
from world.rules.ladder import KNOWLEDGE
from world.scenarios.file_format import FORMAT, GATE_PROPS, PROP_KINDS
from world.scenarios.voice import PHRASES, TEXTS

PREMISE, ROOMS, PERSONAS, PROPS, RUNGS, PHRASEBOOK = "premise", "rooms", "personas", "props", "rungs", "phrasebook"
STAGES = (PREMISE, ROOMS, PERSONAS, PROPS, RUNGS, PHRASEBOOK)
# The file's top-level key -> the stage that writes it (a problem goes back to that stage).
OWNER = {"voyage_scenario": PREMISE, "slug": PREMISE, "name": PREMISE, "start_date": PREMISE, "premise": PREMISE,
         "voice": PREMISE, "rooms": ROOMS, "exits": ROOMS, "personas": PERSONAS, "props": PROPS, "rungs": RUNGS,
         "phrasebook": PHRASEBOOK}

NAME = {"type": "string", "pattern": r'^[^"\\\x00-\x1f\x7f]{1,100}$'}
KEY = {"type": "string", "pattern": r"^[a-z0-9_]{1,50}$"}
# Texts are one line of any length (the answer's max_tokens bounds them): a {1,1000} bound would make
# llama.cpp's grammar converter write out a thousand nested rules per text (342 KB of grammar for the
# premise stage, too slow to decode under on a CPU).
TEXT = {"type": "string", "pattern": r"^[^\x00-\x1f\x7f]+$"}
DATE = {"type": "string", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
NULL = {"type": "null"}

GUIDE = {
    PREMISE: "Write the world's slug (lower case, digits, '-' or '_'), its name, its start date (YYYY-MM-DD), its "
             "premise (what everyone who wakes here is told: the place, why nobody leaves, that each woke in a life "
             "not their own) and its voice: every sentence the engine says about this world, in its own words.",
    ROOMS: "Write at most {rooms} rooms: about half small private homes (two people to a home at most) and the "
           "rest shared rooms. Each room key is lower case with '_'; `deck` names the floor or wing it is on. Exits are pairs of room keys; every room must be "
           "reachable from every other.",
    PERSONAS: "Write at most {people} people. Each lives in a private room of the rooms above (its key as home). "
              "Spouses name each other and share a home; anyone unmarried has spouse null. Each has a history, a "
              "secret and a fear, in the second person (You are ...).",
    PROPS: "Write the props: for every person exactly one 'name' prop (it reveals their name; lay it in their home) and "
           "exactly one 'fear' prop (it reveals their fear; lay it in a shared room), each with its owner's key; then "
           "a few 'scenery' props (owner null). Every prop lies in a room above.",
    RUNGS: "Write the identity ladder: rung 0 (everyone wakes there, knows nothing, gate null), rung 1 gated by "
           "name_prop (knows own_name, setting, item_names, people_names, trust_labels) and rung 2 gated by "
           "fear_prop (knows all of those and history, fear, secret). Allowed actions are among: "
           + ", ".join(ACTION_TYPES) + ".",
    PHRASEBOOK: "Write the offline policy's phrasebook in this world's own words: what its people say, shout, "
                "whisper and think. Lists hold 2 to 5 lines; {me} is the speaker's name where it is allowed.",
}


def closed(properties: dict) -> dict:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def listing(item: dict) -> dict:
    return {"type": "array", "items": item}


def one_of(values) -> dict:
    return {"type": "string", "enum": list(values)} if values else KEY


def nullable(schema: dict) -> dict:
    return {"anyOf": [schema, NULL]}


def stage_schema(stage: str, earlier: dict[str, dict]) -> dict:
    """The JSON schema of a stage's answer, knowing the keys the earlier stages made."""
    rooms = [r.get("key") for r in _items(earlier.get(ROOMS), "rooms") if isinstance(r.get("key"), str)]
    people = [p.get("key") for p in _items(earlier.get(PERSONAS), "personas") if isinstance(p.get("key"), str)]
    if stage == PREMISE:
        return closed({"slug": {"type": "string", "pattern": r"^[a-z0-9_-]{1,50}$"}, "name": NAME, "start_date": DATE,
                       "premise": TEXT, "voice": closed({t.key: TEXT for t in TEXTS})})
    if stage == ROOMS:
        room = closed({"key": KEY, "name": NAME, "deck": NAME, "scale": one_of(("small", "vast")),
                       "ambient_noise": one_of(("low", "high")), "private": {"type": "boolean"}, "description": TEXT})
        return closed({"rooms": listing(room), "exits": listing(closed({"a": KEY, "b": KEY}))})
    if stage == PERSONAS:
        persona = closed({"key": KEY, "display_name": NAME, "home": one_of(rooms), "spouse": nullable(KEY),
                          "history": TEXT, "secret": TEXT, "fear": TEXT, "soul": listing(TEXT)})
        return closed({"personas": listing(persona)})
    if stage == PROPS:
        prop = closed({"name": NAME, "kind": one_of(PROP_KINDS), "room": one_of(rooms),
                       "owner": nullable(one_of(people)), "description": TEXT})
        return closed({"props": listing(prop)})
    if stage == RUNGS:
        gate = closed({"prop": one_of(GATE_PROPS), "min_ticks_since_previous": {"type": "integer"}})
        rung = closed({"level": {"type": "integer"}, "name": NAME, "reveals": TEXT,
                       "allowed_actions": listing(one_of(ACTION_TYPES)), "gate": nullable(gate),
                       "knows": listing(one_of(KNOWLEDGE))})
        return closed({"rungs": listing(rung)})
    if stage == PHRASEBOOK:
        return closed({"phrasebook": closed({t.key: listing(TEXT) if t.is_list else TEXT for t in PHRASES})})
    raise ValueError(f"unknown stage {stage!r}; stages: {', '.join(STAGES)}")


def _items(answer, key: str) -> list[dict]:
    items = answer.get(key) if isinstance(answer, dict) else None
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def assemble(answers: dict[str, dict]) -> dict:
    """The scenario file's data from the stages' answers (a key a stage left out stays out, for the
    checker to name)."""
    premise = answers.get(PREMISE) or {}
    data: dict = {"voyage_scenario": FORMAT}
    for key in ("slug", "name", "start_date", "premise", "voice"):
        if key in premise:
            data[key] = premise[key]
    for stage, keys in ((ROOMS, ("rooms", "exits")), (PERSONAS, ("personas",)), (PROPS, ("props",)),
                        (RUNGS, ("rungs",)), (PHRASEBOOK, ("phrasebook",))):
        answer = answers.get(stage) or {}
        for key in keys:
            if key in answer:
                data[key] = answer[key]
    if isinstance(data.get("exits"), list):
        data["exits"] = [[e.get("a"), e.get("b")] if isinstance(e, dict) else e for e in data["exits"]]
    return data


def stage_of(data: dict, stage: str) -> dict:
    """The slice of a scenario's data that a stage answers (exits back as {a, b} objects)."""
    if stage == PREMISE:
        return {k: data[k] for k in ("slug", "name", "start_date", "premise", "voice") if k in data}
    if stage == ROOMS:
        return {"rooms": data["rooms"], "exits": [{"a": a, "b": b} for a, b in data["exits"]]}
    return {stage: data[stage]}


def owner_of(path: str) -> str:
    """The stage that owns a key path (`exits[3][0]` -> rooms)."""
    top = re.split(r"[.\[]", path, maxsplit=1)[0]
    return OWNER.get(top, PREMISE)
