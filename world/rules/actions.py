"""The six-key action contract: parse a model's answer into an Action or an ActionFail reason.

Pure: no ORM, no I/O. Every input string yields exactly one of the two, never an exception.

It takes what the per-call schema (world.rules.action_schema) takes, and refuses the rest with a
reason: `sleep` names nothing, a duration is one of DURATIONS, and what is said or thought is one
line of at most MAX_TEXT characters with no control character in it. An answer is judged by what
its action uses: `volume` and `dialogue` belong to `communicate` alone, and any other action sets
them aside (IGNORED) rather than failing — a well-formed volume or a line of dialogue on a `move` is
never spoken, and the Action records what was ignored. A flat schema (OpenAI's strict rules allow no
root `anyOf`) cannot tie them to `communicate`, and models fill every key. A raw control character inside a JSON string (a model's literal line break
in its dialogue) is refused with a reason that says so, not as "not valid JSON". What the schema
adds beyond this depends on the agent's situation (which targets are here), and resolve_target
(world.rules.perception) judges that; the one thing the schema asks and this parser does not is
that what is said holds no double quote or backslash (see action_schema.py for why).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

ACTION_TYPES = ("interact", "move", "communicate", "sleep", "attack")
VOLUMES = ("whisper", "normal", "shout")
KEYS = ("action_type", "target_character", "volume", "dialogue", "duration_minutes", "internal_monologue")
DURATIONS = (1, 3, 6, 10, 15, 30, 45, 60, 90, 120, 180, 240, 360, 480)  # minutes an action may take
MAX_DURATION = DURATIONS[-1]
MAX_TEXT = 300  # characters of dialogue, and of internal monologue
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
TEXT_KEYS = ("dialogue", "internal_monologue")
SPOKEN = ("volume", "dialogue")  # what only communicate uses: every other action ignores them
IGNORED = {kind: () if kind == "communicate" else SPOKEN for kind in ACTION_TYPES}


@dataclass(frozen=True)
class Action:
    action_type: str
    target: str | None
    volume: str
    dialogue: str
    duration_minutes: int
    internal_monologue: str
    ignored: tuple[str, ...] = ()  # keys the answer set that its action does not use (IGNORED)


@dataclass(frozen=True)
class ActionFail:
    reason: str


def parse_action(raw: str) -> Action | ActionFail:
    try:
        data = json.loads(raw)
    except (ValueError, TypeError, RecursionError):
        return ActionFail(_why_not_json(raw))
    if not isinstance(data, dict):
        return ActionFail(f"the answer is JSON but not an object (got {type(data).__name__})")
    return action_from_dict(data)


def _why_not_json(raw) -> str:
    """A model that writes a line break inside its dialogue has written JSON in all but that: say so."""
    try:
        json.loads(raw, strict=False)
    except (ValueError, TypeError, RecursionError):
        return "the answer is not valid JSON"
    return ("the answer is not valid JSON: a string in it holds a raw control character "
            "(a line break?); dialogue and internal_monologue are one line each")


def action_from_dict(data: dict) -> Action | ActionFail:
    missing = [k for k in KEYS if k not in data]
    if missing:
        return ActionFail(f"missing key(s): {', '.join(missing)}")
    extra = sorted(str(k) for k in data if k not in KEYS)
    if extra:
        return ActionFail(f"unexpected key(s): {', '.join(extra)[:200]}")

    action_type = data["action_type"]
    if action_type not in ACTION_TYPES:
        return ActionFail(f"action_type must be one of {', '.join(ACTION_TYPES)} (got {_show(action_type)})")
    speaks = action_type == "communicate"

    target = data["target_character"]
    if target is not None and not isinstance(target, str):
        return ActionFail(f"target_character must be a string or null (got {_show(target)})")
    target = target.strip() if target else None

    volume = data["volume"]
    if speaks and volume not in VOLUMES:
        return ActionFail(f"volume must be one of {', '.join(VOLUMES)} to communicate (got {_show(volume)})")
    if not speaks and volume is not None and volume not in VOLUMES:
        return ActionFail(f"volume must be one of {', '.join(VOLUMES)} or null (got {_show(volume)})")

    texts = {}
    for key in TEXT_KEYS:
        text = data[key]
        if not isinstance(text, str):
            return ActionFail(f"{key} must be a string (got {_show(text)})")
        if CONTROL.search(text):
            return ActionFail(f"{key} must be one line with no control character (got {_show(text)})")
        if len(text) > MAX_TEXT:
            return ActionFail(f"{key} must be at most {MAX_TEXT} characters (got {len(text)})")
        texts[key] = text.strip()

    duration = data["duration_minutes"]
    if (isinstance(duration, bool) or not isinstance(duration, (int, float))
            or (isinstance(duration, float) and not math.isfinite(duration)) or duration != int(duration)):
        return ActionFail(f"duration_minutes must be a whole number of minutes (got {_show(duration)})")
    duration = int(duration)
    if duration not in DURATIONS:
        return ActionFail(f"duration_minutes must be one of {', '.join(map(str, DURATIONS))} (got {_show(duration)})")

    if speaks and not texts["dialogue"]:
        return ActionFail("communicate needs a non-empty dialogue")
    if speaks and volume == "whisper" and not target:
        return ActionFail("a whisper needs a target_character")
    if action_type in ("interact", "move", "attack") and not target:
        return ActionFail(f"{action_type} needs a target_character")
    if action_type == "sleep" and target:
        return ActionFail("sleep takes no target_character (it must be null)")

    return Action(
        action_type=action_type,
        target=target,
        volume=volume if speaks else "normal",  # what is ignored counts as null and empty
        dialogue=texts["dialogue"] if speaks else "",
        duration_minutes=duration,
        internal_monologue=texts["internal_monologue"],
        ignored=set_aside(action_type, volume, texts["dialogue"]),
    )


def set_aside(action_type: str, volume, dialogue: str) -> tuple[str, ...]:
    """The keys an answer filled that its action does not use: they count as null and empty."""
    filled = {"volume": volume is not None, "dialogue": bool(dialogue)}
    return tuple(key for key in IGNORED[action_type] if filled[key])


def ignored_note(action: Action) -> str:
    """What the call's record says was set aside, e.g. "volume and dialogue ignored: move"."""
    return f"{' and '.join(action.ignored)} ignored: {action.action_type}" if action.ignored else ""


def _show(value) -> str:
    if isinstance(value, (list, dict)):
        return f"a JSON {'array' if isinstance(value, list) else 'object'}"
    text = json.dumps(value) if not isinstance(value, float) or math.isfinite(value) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."
