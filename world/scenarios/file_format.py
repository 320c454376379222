"""The scenario file format (YAML), read and checked as a whole. Pure: no database.

`read_scenario(text)` returns the file's data and every problem in it: YAML syntax, a missing or
unknown key, a wrong type or value, then the world's rules (world/rules/scenario_check.py). Each
problem names its key path (`personas[3].spouse`), its line in the file, and the rule it breaks.
The format is documented in the README ("Scenario files"); `export.py` writes it.
"""
from __future__ import annotations

import datetime
import re

import yaml

from world.rules.actions import ACTION_TYPES
from world.rules.ladder import FEAR_PROP, KNOWLEDGE, NAME_PROP
from world.scenarios.voice import PHRASEBOOK_KEY, VOICE_KEY, check_voice
from world.rules.scenario_check import (ExitSketch, PersonaSketch, Problem, PropSketch, RoomSketch, RungSketch,
                                        WorldSketch, check_world)

FORMAT = 1
SYNTAX, REQUIRED, TYPE, VALUE, UNKNOWN = ("YAML syntax", "required key", "type", "allowed values", "known keys")
SLUG_RE = re.compile(r"^[-a-zA-Z0-9_]+$")
PROP_KINDS = ("name", "fear", "alien", "scenery")
GATE_PROPS = (NAME_PROP, FEAR_PROP)


class ScenarioFileError(ValueError):
    """A scenario file that cannot be loaded; `problems` lists every reason, each with path and line."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


# --- value checks: each returns the problem's message, or None ---------------------------------------
def text(limit: int | None = None, blank: bool = False):
    def check(value):
        if not isinstance(value, str):
            return f"expected text, got {_kind(value)}" + (" (quote it)" if isinstance(value, (int, float)) else "")
        if not blank and not value.strip():
            return "must not be empty"
        if limit and len(value) > limit:
            return f"at most {limit} characters (this has {len(value)})"
        return None
    check.rule = TYPE
    return check


def slug(value):
    if (problem := text(50)(value)) is not None:
        return problem
    return None if SLUG_RE.match(value) else "letters, digits, '-' and '_' only"


def one_of(*choices):
    def check(value):
        return None if value in choices else f"must be one of {', '.join(choices)}; got {value!r}"
    check.rule = VALUE
    return check


def boolean(value):
    return None if isinstance(value, bool) else f"expected true or false, got {_kind(value)}"


def count(value):
    if isinstance(value, bool) or not isinstance(value, int):
        return f"expected a whole number, got {_kind(value)}"
    return None if value >= 0 else "must be 0 or more"


def date(value):
    if isinstance(value, datetime.date):
        return None
    if isinstance(value, str):
        try:
            datetime.date.fromisoformat(value)
            return None
        except ValueError:
            pass
    return f"expected a date like 1912-04-11, got {value!r}"


def optional(check):
    def wrapped(value):
        return None if value is None else check(value)
    wrapped.rule = getattr(check, "rule", TYPE)
    return wrapped


def _kind(value) -> str:
    return {bool: "true/false", int: "a number", float: "a number", str: "text", list: "a list", dict: "a mapping",
            type(None): "nothing"}.get(type(value), type(value).__name__)


# --- the schema: key -> (check, required) ----------------------------------------------------------
TOP = {"voyage_scenario": (one_of(FORMAT), True), "slug": (slug, True), "name": (text(200), True),
       "premise": (text(blank=True), False), "start_date": (date, True), "rooms": (list, True),
       "exits": (list, True), "personas": (list, True), "props": (list, True), "rungs": (list, True), "voice": (dict, False),
       "phrasebook": (dict, False)}
ROOM = {"key": (slug, True), "name": (text(100), True), "deck": (text(60), True),
        "scale": (one_of("small", "vast"), True), "ambient_noise": (one_of("low", "high"), True),
        "private": (boolean, True), "description": (text(blank=True), False)}
PERSONA = {"key": (slug, True), "display_name": (text(100), True), "history": (text(), True),
           "secret": (text(), True), "fear": (text(), True), "home": (slug, True), "spouse": (optional(slug), False),
           "soul": (list, False), "sex": (one_of("F", "M"), False), "age": (optional(count), False)}
PROP = {"name": (text(100), True), "kind": (one_of(*PROP_KINDS), True), "room": (slug, True),
        "owner": (optional(slug), False), "description": (text(), True)}
RUNG = {"level": (count, True), "name": (text(60), True), "reveals": (text(), True),
        "allowed_actions": (list, True), "gate": (dict, False), "knows": (list, True)}
GATE = {"prop": (one_of(*GATE_PROPS), True), "min_ticks_since_previous": (count, False)}
SECTIONS = {"rooms": ROOM, "personas": PERSONA, "props": PROP, "rungs": RUNG}


def read_scenario(text_: str) -> tuple[dict | None, list[Problem]]:
    """The file's data and its problems (empty when it can be loaded as it is)."""
    try:
        root = yaml.compose(text_, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text_)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return None, [Problem(SYNTAX, "", str(getattr(exc, "problem", None) or exc),
                              line=mark.line + 1 if mark else None)]
    lines: dict[str, int] = {}
    problems: list[Problem] = []
    _index(root, "", lines, problems)
    problems += check_data(data)
    for p in problems:
        if p.line is None:
            object.__setattr__(p, "line", line_of(lines, p.path))
    return (data if not problems else None), problems


def key_lines(text_: str) -> dict[str, int]:
    """The line of every key path of a file that parses (for problems found by other checks)."""
    lines: dict[str, int] = {}
    _index(yaml.compose(text_, Loader=yaml.SafeLoader), "", lines, [])
    return lines


def check_data(data) -> list[Problem]:
    """The format's keys and types, then (if those hold) the world's rules."""
    return check_schema(data) or check_world(sketch(data))


def _index(node, path: str, lines: dict[str, int], problems: list[Problem]) -> None:
    """Record the line of every key path; a key given twice is a problem (YAML keeps only the last)."""
    if isinstance(node, yaml.MappingNode):
        seen = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            sub = f"{path}.{key}" if path else key
            if key in seen:
                problems.append(Problem(UNKNOWN, sub, "this key is given twice", line=key_node.start_mark.line + 1))
            seen.add(key)
            lines[sub] = key_node.start_mark.line + 1
            _index(value_node, sub, lines, problems)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            sub = f"{path}[{i}]"
            lines[sub] = item.start_mark.line + 1
            _index(item, sub, lines, problems)


def line_of(lines: dict[str, int], path: str) -> int | None:
    """The line of `path`, or of its nearest enclosing key when it is missing."""
    while path:
        if path in lines:
            return lines[path]
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""
    return None


def _mapping(value, schema: dict, path: str) -> list[Problem]:
    if not isinstance(value, dict):
        return [Problem(TYPE, path or "(top)", f"expected a mapping of keys, got {_kind(value)}")]
    problems = []
    for key, (check, required) in schema.items():
        sub = f"{path}.{key}" if path else key
        if key not in value:
            if required:
                problems.append(Problem(REQUIRED, sub, "missing"))
            continue
        if check is list or check is dict:
            if not isinstance(value[key], check) and not (check is dict and value[key] is None):
                problems.append(Problem(TYPE, sub, f"expected {'a list' if check is list else 'a mapping'}, "
                                                   f"got {_kind(value[key])}"))
        elif (message := check(value[key])) is not None:
            problems.append(Problem(getattr(check, "rule", TYPE), sub, message))
    for key in value:
        if key not in schema:
            sub = f"{path}.{key}" if path else str(key)
            problems.append(Problem(UNKNOWN, sub, f"unknown key (known here: {', '.join(schema)})"))
    return problems


def check_schema(data) -> list[Problem]:
    problems = _mapping(data, TOP, "")
    if problems and not isinstance(data, dict):
        return problems
    for section, schema in SECTIONS.items():
        items = data.get(section)
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            problems += _mapping(item, schema, f"{section}[{i}]")
    for i, persona in enumerate(_list(data, "personas")):
        for j, entry in enumerate(_list(persona, "soul")):
            if (message := text(300)(entry)) is not None:
                problems.append(Problem(TYPE, f"personas[{i}].soul[{j}]", message))
    for i, exit_ in enumerate(_list(data, "exits")):
        if not (isinstance(exit_, list) and len(exit_) == 2 and all(isinstance(e, str) for e in exit_)):
            problems.append(Problem(TYPE, f"exits[{i}]", f"an exit is a pair of room keys, [a, b]; got {exit_!r}"))
    for i, rung in enumerate(_list(data, "rungs")):
        for j, action in enumerate(_list(rung, "allowed_actions")):
            if action not in ACTION_TYPES:
                problems.append(Problem(VALUE, f"rungs[{i}].allowed_actions[{j}]",
                                        f"unknown action {action!r} (actions: {', '.join(ACTION_TYPES)})"))
        for j, fact in enumerate(_list(rung, "knows")):
            if fact not in KNOWLEDGE:
                problems.append(Problem(VALUE, f"rungs[{i}].knows[{j}]",
                                        f"unknown fact {fact!r} (a rung can know: {', '.join(KNOWLEDGE)})"))
        if isinstance(rung, dict) and isinstance(rung.get("gate"), dict):
            problems += _mapping(rung["gate"], GATE, f"rungs[{i}].gate")
    for section in (VOICE_KEY, PHRASEBOOK_KEY):
        if isinstance(data.get(section), dict):
            problems += [Problem(rule, path, message) for rule, path, message in check_voice(data[section], section)]
    return problems


def _list(mapping, key) -> list:
    value = mapping.get(key) if isinstance(mapping, dict) else None
    return value if isinstance(value, list) else []


def sketch(data: dict) -> WorldSketch:
    """The world of a schema-checked file, for the world's rules."""
    return WorldSketch(
        rooms=tuple(RoomSketch(r["key"], r["name"], f"rooms[{i}]") for i, r in enumerate(data["rooms"])),
        exits=tuple(ExitSketch(a, b, f"exits[{i}]") for i, (a, b) in enumerate(data["exits"])),
        personas=tuple(PersonaSketch(p["key"], p["display_name"], p["home"], p.get("spouse"), f"personas[{i}]")
                       for i, p in enumerate(data["personas"])),
        props=tuple(PropSketch(p["name"], p["kind"], p["room"], p.get("owner"), f"props[{i}]")
                    for i, p in enumerate(data["props"])),
        rungs=tuple(RungSketch(r["level"], f"rungs[{i}]") for i, r in enumerate(data["rungs"])),
    )
