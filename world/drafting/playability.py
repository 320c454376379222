"""Checks a drafted world must pass beyond the file's own rules, because a world that imports can
still be unplayable or speak another world's words. Pure: over a schema-checked file's data (the
checker reads the format first) and the paragraph it was drafted from.

(Spouses that name each other and share a home are the file's own rule: world/rules/scenario_check.py.)
"""
from __future__ import annotations

from world.rules.scenario_check import Problem
from world.drafting.words import words_in
from world.scenarios.voice import PHRASES, TEXTS

REACHABLE = "every room is reachable from every home"
RUNG_REACHABLE = "every rung is reachable: it has a gate, and each gating prop lies where its owner can walk"
VOICE_COMPLETE = "the voice and phrasebook give every text the engine speaks, in this world's words"
OWN_WORDS = "the world speaks its own words, not the default world's (unless the paragraph uses them)"
SIZES = "no more people or rooms than were asked for"
KIND_OF_GATE = {"name_prop": "name", "fear_prop": "fear"}


def playability_problems(data: dict, paragraph: str, people: int, rooms: int) -> list[Problem]:
    return [*_sizes(data, people, rooms), *_reachable(data), *_rungs_reachable(data), *_voice_complete(data),
            *_own_words(data, paragraph)]


def _sizes(data: dict, people: int, rooms: int) -> list[Problem]:
    problems = []
    if len(data["personas"]) > people:
        problems.append(Problem(SIZES, f"personas[{people}]", f"{len(data['personas'])} people; at most {people}"))
    if len(data["rooms"]) > rooms:
        problems.append(Problem(SIZES, f"rooms[{rooms}]", f"{len(data['rooms'])} rooms; at most {rooms}"))
    return problems


def reached_from(start: str, exits: list) -> set[str]:
    ways: dict[str, set[str]] = {}
    for a, b in exits:
        ways.setdefault(a, set()).add(b)
        ways.setdefault(b, set()).add(a)
    seen, frontier = {start}, [start]
    while frontier:
        for nxt in ways.get(frontier.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    return seen


def _reachable(data: dict) -> list[Problem]:
    keys = [r["key"] for r in data["rooms"]]
    problems, done = [], set()
    for i, p in enumerate(data["personas"]):
        if p["home"] in done or p["home"] not in keys:
            continue
        done.add(p["home"])
        cut_off = [k for k in keys if k not in reached_from(p["home"], data["exits"])]
        if cut_off:
            problems.append(Problem(REACHABLE, "exits", f"from the home {p['home']!r} of personas[{i}] no way "
                                                         f"leads to {', '.join(map(repr, cut_off))}"))
    return problems


def _rungs_reachable(data: dict) -> list[Problem]:
    problems = []
    gates = set()
    for i, rung in enumerate(data["rungs"]):
        gate = rung.get("gate") or {}
        if rung["level"] > 0 and not gate.get("prop"):
            problems.append(Problem(RUNG_REACHABLE, f"rungs[{i}].gate", f"rung {rung['level']} has no gate: "
                                                                         "nobody can ever climb to it"))
        if gate.get("prop") in KIND_OF_GATE:
            gates.add(KIND_OF_GATE[gate["prop"]])
    homes = {p["key"]: p["home"] for p in data["personas"]}
    for j, prop in enumerate(data["props"]):
        owner = prop.get("owner")
        if prop["kind"] not in gates or owner not in homes:
            continue
        if prop["room"] not in reached_from(homes[owner], data["exits"]):
            problems.append(Problem(RUNG_REACHABLE, f"props[{j}].room",
                                    f"the {prop['kind']} prop {prop['name']!r} of {owner!r} lies in {prop['room']!r}, "
                                    f"where no way leads from their home {homes[owner]!r}"))
    return problems


def _voice_complete(data: dict) -> list[Problem]:
    problems = []
    for section, texts in (("voice", TEXTS), ("phrasebook", PHRASES)):
        given = data.get(section) or {}
        problems += [Problem(VOICE_COMPLETE, f"{section}.{t.key}", "missing: the engine speaks this text, and the "
                                                                   "default would be another world's words")
                     for t in texts if t.key not in given]
    return problems


def _own_words(data: dict, paragraph: str) -> list[Problem]:
    allowed = words_in(paragraph)
    problems = []
    for path, text in text_leaves(data):
        foreign = sorted(words_in(text) - allowed)
        if foreign:
            problems.append(Problem(OWN_WORDS, path, f"uses the default world's word(s) {', '.join(foreign)}, which "
                                                     "the paragraph does not"))
    return problems


def text_leaves(value, path: str = ""):
    """(key path, text) of every text in the data."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from text_leaves(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from text_leaves(item, f"{path}[{i}]")

