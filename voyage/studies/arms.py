"""A study's intervention axis, pure: the interventions that are its values ("none" is the arm without
one), parsed from the command line or taken from the API and the admin, checked for what needs no
database (kind, fields, a tick inside the runs' length), and the tick the arms fork at.

The arms of a study are forks of one base run per cell of the other axes: the base runs to the fork
tick (the earliest tick among the axis's interventions) once, and each arm replays it there, so every
arm equals its base byte for byte before that tick. Whether a room or an agent exists is the
scenario's business: voyage.instruments.interventions checks that when the study schedules the
intervention in its arm's run.
"""
from __future__ import annotations

import json
import re

INTERVENTION, NO_INTERVENTION = "intervention", "none"
KINDS = ("room_event", "memory", "object_place", "object_move", "object_remove", "persona")
# What each kind takes besides kind and tick (the run API's fields, voyage/api/instruments.py).
FIELDS = {
    "room_event": {"room", "how", "text"},
    "memory": {"agent", "text"},
    "object_place": {"name", "room", "text"},
    "object_move": {"name", "room"},
    "object_remove": {"name"},
    "persona": {"agent", "field", "text"},
}
NEEDED = {kind: fields - {"how"} for kind, fields in FIELDS.items()}
NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
SHORT = "NAME:room_event@TICK:ROOM:TEXT, NAME:memory@TICK:AGENT:TEXT, or NAME={JSON}"


class ArmError(ValueError):
    """A bad intervention of the axis; the message names it."""


def parse_spec(spec: str) -> tuple[str, dict]:
    """One `--intervention`: `lights:room_event@60:grand_staircase:The lights go out.`, or
    `lights={"kind": "object_place", "tick": 60, "name": "Lamp", "room": "bar", "text": "A brass lamp."}`
    (any kind, the API's fields). Returns (name, the raw fields), checked by `check_spec`."""
    head, eq, body = spec.partition("=")
    if eq and ":" not in head and body.lstrip().startswith("{"):
        try:
            fields = json.loads(body)
        except json.JSONDecodeError as exc:
            raise ArmError(f"--intervention {head.strip()!r}: its JSON does not parse ({exc.msg} at column "
                           f"{exc.colno})") from None
        if not isinstance(fields, dict):
            raise ArmError(f"--intervention {head.strip()!r}: the JSON must be an object")
        return head.strip(), fields
    name, _, rest = spec.partition(":")
    what, _, rest = rest.partition(":")
    where, _, text = rest.partition(":")
    kind, _, tick = what.partition("@")
    if not (name.strip() and tick.strip().isdigit() and kind in ("room_event", "memory") and where and text):
        raise ArmError(f"--intervention {spec!r}: write {SHORT}")
    return name.strip(), {"kind": kind, "tick": int(tick), "text": text,
                          ("room" if kind == "room_event" else "agent"): where.strip()}


def check_spec(name: str, fields: dict, target_ticks: int) -> dict:
    """The intervention's arguments for voyage.instruments.interventions.intervene, or ArmError."""
    if not isinstance(name, str) or not NAME.match(name) or name == NO_INTERVENTION:
        raise ArmError(f"intervention {name!r}: a name of 1 to 40 letters, digits, '_' or '-', other than "
                       f"{NO_INTERVENTION!r}")
    where = f"intervention {name!r}"
    kind = fields.get("kind")
    if kind not in KINDS:
        raise ArmError(f"{where}: kind is one of {', '.join(KINDS)}, not {kind!r}")
    tick = fields.get("tick")
    if not isinstance(tick, int) or isinstance(tick, bool):
        raise ArmError(f"{where}: tick, a whole number, is needed (the arms fork at it), not {tick!r}")
    if not 1 <= tick < target_ticks:
        raise ArmError(f"{where}: tick {tick} is beyond the runs' length of {target_ticks} ticks: give a tick "
                       f"from 1 to {target_ticks - 1}")
    extra = sorted(set(fields) - FIELDS[kind] - {"kind", "tick"})
    if extra:
        raise ArmError(f"{where}: {kind} takes {', '.join(sorted(FIELDS[kind]))}, not {', '.join(extra)}")
    given = {k: v for k, v in fields.items() if k not in ("kind", "tick") and v not in (None, "")}
    missing = sorted(NEEDED[kind] - set(given))
    if missing:
        raise ArmError(f"{where}: {kind} needs {', '.join(missing)}")
    for key, value in given.items():
        if not isinstance(value, str):
            raise ArmError(f"{where}: {key} is text, not {value!r}")
    return {"kind": kind, "tick": tick, **given}


def check_axis(values: list[str] | None, specs: dict[str, dict], target_ticks: int) -> dict[str, dict]:
    """The axis's interventions, each checked; every value but "none" defined, every definition used."""
    if values is None:
        if specs:
            raise ArmError(f"intervention {', '.join(map(repr, specs))}: defined but not varied; vary "
                           f"intervention={NO_INTERVENTION},{','.join(specs)}")
        return {}
    unknown = [v for v in values if v != NO_INTERVENTION and v not in specs]
    if unknown:
        raise ArmError(f"intervention={','.join(unknown)}: define it with --intervention {SHORT} "
                       f"(or vary {NO_INTERVENTION!r})")
    unused = [name for name in specs if name not in values]
    if unused:
        raise ArmError(f"intervention {', '.join(map(repr, unused))}: defined but not a value of the "
                       f"intervention axis ({','.join(values)})")
    if not specs:
        raise ArmError(f"intervention={','.join(values)}: vary {NO_INTERVENTION!r} and at least one intervention")
    return {name: check_spec(name, fields, target_ticks) for name, fields in specs.items()}


def fork_tick(specs: dict[str, dict]) -> int:
    """Where the arms part: the earliest tick among the interventions (a later one waits in its arm)."""
    return min(spec["tick"] for spec in specs.values())


def base_key(cell: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """Which base run a cell's arm forks from: its values on every axis but the intervention."""
    return tuple((k, v) for k, v in cell.items() if k != INTERVENTION)
