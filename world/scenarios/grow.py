"""Growing a world: a scenario's data tiled into copies until it holds N people. Pure: no database.

`grow(data, agents)` takes a scenario in the file format's data (world/scenarios/files.py
`scenario_data`, or a read file) and returns a new one with exactly `agents` personas:

- copy c (1, 2, ...) of every room, exit, persona, soul entry and prop, its keys ending "-c" and its
  names "(c)", and the names inside its texts renamed to match (a copy's history speaks of its own
  rooms and people);
- the copies joined into one map: the first public room of each copy has a way to the next copy's,
  and the last copy's to the first (a ring, a chain of two when there are two copies);
- the last copy short of people when N is not a multiple of the world's cast: whole couples or
  single people are left out (with their name and fear props), so spouses stay mutual and at home;
- the same rungs, start date and premise.

The same data and N always give the same world.
"""
from __future__ import annotations

import re

SUFFIX_KEY = "-{c}"
SUFFIX_NAME = " ({c})"  # closed, so "Salon (1)" is never found inside "Salon (12)"


class GrowError(ValueError):
    """A world that cannot be grown to the size asked."""


def grow(data: dict, agents: int) -> dict:
    personas = data["personas"]
    if agents < 1:
        raise GrowError("a grown world needs at least one person")
    if not personas:
        raise GrowError(f"scenario {data['slug']!r} has no personas to copy")
    copies = -(-agents // len(personas))
    last_cast = cast_of(personas, agents - (copies - 1) * len(personas))
    tiles = [tile(data, c, None if c < copies else last_cast) for c in range(1, copies + 1)]
    gates = [gate(data, c) for c in range(1, copies + 1)]
    joins = [[gates[i], gates[i + 1]] for i in range(copies - 1)]
    if copies > 2:
        joins.append([gates[-1], gates[0]])
    return {
        "voyage_scenario": data["voyage_scenario"],
        "slug": f"{data['slug']}-grown-{agents}"[:50],
        "name": f"{data['name']}, grown to {agents} people"[:200],
        "start_date": data["start_date"],
        "premise": data.get("premise") or "",
        "rooms": [r for t in tiles for r in t["rooms"]],
        "exits": [e for t in tiles for e in t["exits"]] + joins,
        "personas": [p for t in tiles for p in t["personas"]],
        "props": [p for t in tiles for p in t["props"]],
        "rungs": [dict(r) for r in data["rungs"]],
    }


def cast_of(personas: list[dict], n: int) -> set[str]:
    """The keys of the first n personas (in file order) that leave no spouse behind: a couple comes
    whole or not at all."""
    by_key = {p["key"]: p for p in personas}
    chosen: list[str] = []
    for p in personas:
        if len(chosen) == n:
            break
        if p["key"] in chosen:
            continue
        spouse = p.get("spouse")
        group = [p["key"]] + ([spouse] if spouse and spouse in by_key and spouse != p["key"] else [])
        if len(chosen) + len(group) <= n:
            chosen += group
    if len(chosen) != n:
        raise GrowError(f"cannot leave exactly {n} of this world's people in the last copy without parting a couple")
    return set(chosen)


def gate(data: dict, c: int) -> str:
    """The room of copy c that joins it to its neighbours: the first public room (else the first)."""
    room = next((r for r in data["rooms"] if not r["private"]), data["rooms"][0])
    return room["key"] + SUFFIX_KEY.format(c=c)


def tile(data: dict, c: int, cast: set[str] | None) -> dict:
    """Copy c of the world, with only the personas of `cast` (all when None)."""
    key = lambda k: None if k is None else k + SUFFIX_KEY.format(c=c)  # noqa: E731
    suffix = SUFFIX_NAME.format(c=c)
    renamed = rename_in_text([r["name"] for r in data["rooms"]] + [p["display_name"] for p in data["personas"]]
                             + [p["name"] for p in data["props"]], suffix)
    kept = [p for p in data["personas"] if cast is None or p["key"] in cast]
    keys = {p["key"] for p in kept}
    rooms = [{**r, "key": key(r["key"]), "name": r["name"] + suffix, "description": renamed(r.get("description") or "")}
             for r in data["rooms"]]
    personas = [{**p, "key": key(p["key"]), "display_name": p["display_name"] + suffix, "home": key(p["home"]),
                 "spouse": key(p.get("spouse")), "history": renamed(p["history"]), "secret": renamed(p["secret"]),
                 "fear": renamed(p["fear"]), "soul": [renamed(s) for s in p.get("soul") or []]} for p in kept]
    props = [{**p, "name": p["name"] + suffix, "room": key(p["room"]), "owner": key(p.get("owner")),
              "description": renamed(p["description"])}
             for p in data["props"] if p.get("owner") is None or p["owner"] in keys]
    return {"rooms": rooms, "exits": [[key(a), key(b)] for a, b in data["exits"]], "personas": personas, "props": props}


def rename_in_text(names: list[str], suffix: str):
    """A function that gives every whole-word mention of a name the copy's suffix, in one pass
    (longest names first, so "Entrance Hall" is renamed whole, not as "Hall")."""
    names = sorted({n for n in names if n.strip()}, key=lambda n: (-len(n), n))
    if not names:
        return lambda text: text
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, names)) + r")(?!\w)")
    return lambda text: pattern.sub(lambda m: m.group(0) + suffix, text)
