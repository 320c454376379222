"""Situations to build action schemas from, drawn from the shipped scenarios' own data (no database):
every rung of each ladder, people and items here or not, and a grown world's crowded hall, with
the rooms a prompt names. Shared by the schema-engine tests and the provider fixture servers."""
from __future__ import annotations

import functools
import json

from world.rules.action_schema import action_branches, rooms_in_reach
from world.rules.actions import DURATIONS
from world.rules.ladder import RungSpec
from world.rules.perception import Person, Place, Thing, perceive, render_situation
from world.rules.action_schema import rooms_named
from world.rules.prompt_text import example_answer
from world.scenarios.file_format import read_scenario
from world.scenarios.files import shipped_file
from world.scenarios.grow import grow

# (people here, items here): nobody and nothing, people only, items only, both, a crowd
PRESENCE = ((0, 0), (3, 0), (0, 2), (3, 2), (60, 4))


@functools.lru_cache(maxsize=None)
def scenario(slug: str, agents: int = 0) -> dict:
    data, problems = read_scenario(shipped_file(slug).read_text())
    assert not problems, problems
    return grow(data, agents) if agents else data


def rungs_of(data: dict) -> tuple[RungSpec, ...]:
    return tuple(RungSpec(r["level"], r["name"], r["reveals"], tuple(r["allowed_actions"]), r.get("gate"),
                          knows=frozenset(r.get("knows") or ())) for r in data["rungs"])


def situation(data: dict, rung: RungSpec, people: int, items: int, room_index: int = 0):
    """A turn in the data's room number `room_index`, with that many people and items, as perceived at
    `rung`; and the rooms its prompt names (the ways out and a few more the agent remembers)."""
    rooms = {r["name"]: i + 1 for i, r in enumerate(data["rooms"])}
    keyed = {r["key"]: r for r in data["rooms"]}
    here = data["rooms"][room_index % len(data["rooms"])]
    ways = [keyed[b if a == here["key"] else a]["name"] for a, b in data["exits"] if here["key"] in (a, b)]
    names = [p["display_name"] for p in data["personas"]][:people]
    props = [p["name"] for p in data["props"]][:items]
    seen = perceive(agent_id=0, rung=rung.level, knows=rung.knows, room=Place(rooms[here["name"]], here["name"]),
                    room_description="", scale=here["scale"], ambient_noise=here["ambient_noise"],
                    people=[Person(100 + i, n, asleep=i % 4 == 3) for i, n in enumerate(names)],
                    things=[Thing(5000 + i, n) for i, n in enumerate(props)],
                    exits=[Place(rooms[w], w) for w in ways], rooms_by_name=rooms)
    remembered = " ".join(r["name"] for r in data["rooms"][-5:])
    return seen, rooms_named(render_situation(seen) + remembered, rooms)


def cases():
    """(label, situation, allowed actions, rooms named) over the shipped worlds and a grown one."""
    worlds = [("1912", scenario("1912")), ("edelweiss", scenario("edelweiss")), ("1912x400", scenario("1912", 400))]
    for slug, data in worlds:
        for rung in rungs_of(data):
            for people, items in PRESENCE:
                seen, rooms = situation(data, rung, people, items, room_index=rung.level * 7)
                yield f"{slug}/rung{rung.level}/{people}p{items}i", seen, rung.allowed_actions, rooms


def valid_answers(seen, allowed, rooms, key: str = "p01:1"):
    """Answers the contract takes here: each branch with each of its targets and volumes, the turn's
    example answer, and text at its bounds (accents, apostrophes, 300 characters)."""
    out = [example_answer(seen, allowed, key)]
    for action in allowed:
        for branch in action_branches(action, seen, rooms):
            p = branch["properties"]
            for target in p["target_character"].get("enum", [None])[:6]:
                for volume in p["volume"].get("enum", [None]):
                    said = "" if "const" in p["dialogue"] else "Zoë's pocket watch, I think."
                    out.append(answer(p["action_type"]["const"], target, volume, said, DURATIONS[-1], "a" * 300))
    return out


def invalid_answers(seen, allowed, rooms) -> list[tuple[str, dict]]:
    """(why, answer): answers neither dialect's schema may take."""
    way = (rooms_in_reach(seen, rooms) or [None])[0]
    base = answer("move", way, None, "", 3, "Onward.") if way else answer("sleep", None, None, "", 30, "Rest.")
    return [
        ("an action type that does not exist", {**base, "action_type": "dance"}),
        ("a target nobody can name here", {**base, "target_character": "Nowhere At All"}),
        ("a duration off the list", {**base, "duration_minutes": 7}),
        ("a line break in what is thought", {**base, "internal_monologue": "one\ntwo"}),
        ("a thought over 300 characters", {**base, "internal_monologue": "a" * 301}),
        ("a seventh key", {**base, "mood": "calm"}),
        ("a missing key", {k: v for k, v in base.items() if k != "volume"}),
        ("a volume that does not exist", {**base, "volume": "loud"}),
        ("a duration written as words", {**base, "duration_minutes": "three"}),
    ]


def branch_only_invalid(seen, allowed, rooms) -> list[tuple[str, dict]]:
    """Answers the per-action branches refuse but the flat six-key object takes: the parser refuses
    the first two, and sets the volume on a move aside (world.rules.actions.IGNORED)."""
    way = (rooms_in_reach(seen, rooms) or [None])[0]
    out = [("sleep naming someone", answer("sleep", way, None, "", 30, "Rest."))] if way else []
    if seen.people and "communicate" in allowed:  # a whisper is in the flat enum once someone is here
        out.append(("a whisper to the room", answer("communicate", None, "whisper", "Psst.", 3, "Quiet.")))
    if way and "move" in allowed:
        out.append(("a volume on a move", answer("move", way, "normal", "", 3, "Onward.")))
    return out


def answer(action_type, target, volume, dialogue, minutes, thought) -> dict:
    return {"action_type": action_type, "target_character": target, "volume": volume, "dialogue": dialogue,
            "duration_minutes": minutes, "internal_monologue": thought}


def as_json(value, spaced: bool = True) -> str:
    """As a model writes it: UTF-8 as it is (no \\u escapes), with or without spaces after separators."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": ") if spaced else (",", ":"))
