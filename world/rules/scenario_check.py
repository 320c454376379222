"""The rules a scenario's world must keep, as pure functions over a plain sketch of it.

Both the admin (which sketches the rows as they would be after a save) and the scenario-file import
(which sketches the parsed file) ask `check_world`; each problem names the rule it breaks and
where (`path`: a file's key path such as `personas[3].spouse`, or a label such as "persona 'x'").
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from world.rules.graph import RoomGraph

CONNECTED = "the room graph is connected"
KNOWN_ROOMS = "exits, homes and props name rooms of the scenario"
HOME = "every persona has a home room"
NAME_PROP = "every persona has one name prop of its own"
FEAR_PROP = "every persona has one fear prop of its own"
OWNERS = "a prop's owner is a persona of the scenario"
RUNG_LEVELS = "rung levels run 0, 1, 2… without gaps"
SPOUSES = "spouses are mutual and share a home"
UNIQUE = "keys and names are unique (an agent names rooms, people and things by them)"
WRITABLE = ("names hold no double quote, backslash or control character (a model writes them in a JSON "
            "string, and llama.cpp's grammar converter cannot hold a quote or backslash in a name)")


@dataclass(frozen=True)
class RoomSketch:
    key: str
    name: str
    path: str = ""


@dataclass(frozen=True)
class ExitSketch:
    a: str
    b: str
    path: str = ""


@dataclass(frozen=True)
class PersonaSketch:
    key: str
    display_name: str
    home: str | None
    spouse: str | None = None
    path: str = ""


@dataclass(frozen=True)
class PropSketch:
    name: str
    kind: str  # name, fear, alien, scenery
    room: str | None
    owner: str | None = None
    path: str = ""


@dataclass(frozen=True)
class RungSketch:
    level: int
    path: str = ""


@dataclass(frozen=True)
class WorldSketch:
    rooms: tuple[RoomSketch, ...] = ()
    exits: tuple[ExitSketch, ...] = ()
    personas: tuple[PersonaSketch, ...] = ()
    props: tuple[PropSketch, ...] = ()
    rungs: tuple[RungSketch, ...] = ()


@dataclass(frozen=True)
class Problem:
    rule: str
    path: str
    message: str
    line: int | None = field(default=None, compare=False)

    def __str__(self):
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.path}: {self.message} (rule: {self.rule})" if self.path else \
            f"{where}{self.message} (rule: {self.rule})"


def check_world(world: WorldSketch) -> list[Problem]:
    """Every broken rule of the world, in a stable order; empty when the world is sound."""
    return [*_unique(world), *_known_rooms(world), *_connected(world), *_homes(world), *_own_props(world),
            *_spouses(world), *_rung_levels(world)]


def _at(path: str, field_name: str) -> str:
    return f"{path}.{field_name}" if path else field_name


def _unique(world: WorldSketch) -> list[Problem]:
    problems = []
    for what, items, attr in (("room key", world.rooms, "key"), ("persona key", world.personas, "key")):
        for item in _repeats(items, lambda i: getattr(i, attr)):
            problems.append(Problem(UNIQUE, _at(item.path, attr), f"{what} {getattr(item, attr)!r} is used twice"))
    named = ([("room", r.name, _at(r.path, "name")) for r in world.rooms]
             + [("person", p.display_name, _at(p.path, "display_name")) for p in world.personas]
             + [("prop", p.name, _at(p.path, "name")) for p in world.props])
    seen: dict[str, str] = {}
    for what, name, path in named:
        if any(c in name for c in '"\\') or any(ord(c) < 32 or ord(c) == 127 for c in name):
            problems.append(Problem(WRITABLE, path, f"the {what} name {name!r} holds a double quote, a backslash "
                                                    "or a control character"))
        folded = name.strip().casefold()
        if folded in seen:
            problems.append(Problem(UNIQUE, path, f"the {what} name {name!r} is already the name of a {seen[folded]}"))
        else:
            seen[folded] = what
    return problems


def _repeats(items, key):
    counts = Counter(key(i) for i in items)
    done = set()
    for item in items:
        k = key(item)
        if counts[k] > 1 and k not in done:
            done.add(k)
            yield item


def _known_rooms(world: WorldSketch) -> list[Problem]:
    rooms = {r.key for r in world.rooms}
    problems = []
    for e in world.exits:
        for i, end in enumerate((e.a, e.b)):
            if end not in rooms:
                problems.append(Problem(KNOWN_ROOMS, f"{e.path}[{i}]", f"the exit names an unknown room {end!r}"))
        if e.a == e.b and e.a in rooms:
            problems.append(Problem(KNOWN_ROOMS, e.path, f"an exit from {e.a!r} to itself goes nowhere"))
    for p in world.props:
        if p.room is not None and p.room not in rooms:
            problems.append(Problem(KNOWN_ROOMS, _at(p.path, "room"), f"prop {p.name!r} lies in an unknown room {p.room!r}"))
    return problems


def _connected(world: WorldSketch) -> list[Problem]:
    keys = [r.key for r in world.rooms]
    if not keys:
        return [Problem(CONNECTED, "rooms", "a scenario needs at least one room")]
    known = set(keys)
    exits = [(e.a, e.b) for e in world.exits if e.a in known and e.b in known]
    graph = RoomGraph(keys, exits)
    reached, frontier = {keys[0]}, [keys[0]]
    while frontier:
        for nxt in graph.neighbours[frontier.pop()]:
            if nxt not in reached:
                reached.add(nxt)
                frontier.append(nxt)
    cut_off = [r for r in world.rooms if r.key not in reached]
    if not cut_off:
        return []
    names = ", ".join(repr(r.key) for r in cut_off)
    return [Problem(CONNECTED, cut_off[0].path or "exits",
                    f"no way leads from {keys[0]!r} to {names}: every room must be reachable from every other")]


def _homes(world: WorldSketch) -> list[Problem]:
    rooms = {r.key for r in world.rooms}
    problems = []
    for p in world.personas:
        if not p.home:
            problems.append(Problem(HOME, _at(p.path, "home"), f"persona {p.key!r} has no home room"))
        elif p.home not in rooms:
            problems.append(Problem(HOME, _at(p.path, "home"), f"persona {p.key!r} has an unknown home room {p.home!r}"))
    return problems


def _own_props(world: WorldSketch) -> list[Problem]:
    personas = {p.key for p in world.personas}
    problems = [Problem(OWNERS, _at(p.path, "owner"), f"prop {p.name!r} belongs to an unknown persona {p.owner!r}")
                for p in world.props if p.owner is not None and p.owner not in personas]
    for kind, rule in (("name", NAME_PROP), ("fear", FEAR_PROP)):
        problems += [Problem(rule, _at(p.path, "owner"), f"the {kind} prop {p.name!r} has no owner: whose {kind} does it reveal?")
                     for p in world.props if p.kind == kind and p.owner is None]
        owned = Counter(p.owner for p in world.props if p.kind == kind and p.owner is not None)
        for persona in world.personas:
            if owned[persona.key] != 1:
                problems.append(Problem(rule, persona.path, f"persona {persona.key!r} has {owned[persona.key]} "
                                                            f"{kind} props; it needs exactly one"))
    return problems


def _spouses(world: WorldSketch) -> list[Problem]:
    by_key = {p.key: p for p in world.personas}
    problems = []
    for p in world.personas:
        if p.spouse is None:
            continue
        path = _at(p.path, "spouse")
        other = by_key.get(p.spouse)
        if other is None:
            problems.append(Problem(SPOUSES, path, f"{p.key!r} is married to an unknown persona {p.spouse!r}"))
        elif other.key == p.key:
            problems.append(Problem(SPOUSES, path, f"{p.key!r} cannot be their own spouse"))
        elif other.spouse != p.key:
            problems.append(Problem(SPOUSES, path, f"{p.key!r} names {other.key!r} as spouse, but {other.key!r} "
                                                     f"names {other.spouse!r}"))
        elif other.home != p.home:
            problems.append(Problem(SPOUSES, path, f"spouses {p.key!r} and {other.key!r} live apart "
                                                     f"({p.home!r}, {other.home!r}): they share a home"))
    return problems


def _rung_levels(world: WorldSketch) -> list[Problem]:
    if not world.rungs:
        return [Problem(RUNG_LEVELS, "rungs", "a scenario needs at least rung 0, where every agent wakes")]
    levels = sorted(r.level for r in world.rungs)
    if levels == list(range(len(levels))):
        return []
    missing = sorted(set(range(max(levels) + 1)) - set(levels))
    repeated = sorted(level for level, n in Counter(levels).items() if n > 1)
    said = []
    if missing:
        said.append(f"level {', '.join(map(str, missing))} is missing")
    if repeated:
        said.append(f"level {', '.join(map(str, repeated))} is given twice")
    # Point at the first rung out of place: past a gap, or a repeat.
    seen: set[int] = set()
    culprit = world.rungs[0]
    for rung in world.rungs:
        if rung.level in seen or (missing and rung.level > missing[0]):
            culprit = rung
            break
        seen.add(rung.level)
    return [Problem(RUNG_LEVELS, _at(culprit.path, "level"), f"the levels are {levels}: {'; '.join(said)}")]
