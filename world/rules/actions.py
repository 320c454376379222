"""The six-key action contract: parse a model's answer into an Action or an ActionFail reason.

Pure: no ORM, no I/O. Every input string yields exactly one of the two, never an exception.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

ACTION_TYPES = ("interact", "move", "communicate", "sleep", "attack")
VOLUMES = ("whisper", "normal", "shout")
KEYS = ("action_type", "target_character", "volume", "dialogue", "duration_minutes", "internal_monologue")
MAX_DURATION = 480
MAX_TEXT = 4000  # longer dialogue or monologue is cut, not failed: a verbose model still acts


@dataclass(frozen=True)
class Action:
    action_type: str
    target: str | None
    volume: str
    dialogue: str
    duration_minutes: int
    internal_monologue: str


@dataclass(frozen=True)
class ActionFail:
    reason: str


def parse_action(raw: str) -> Action | ActionFail:
    try:
        data = json.loads(raw)
    except (ValueError, TypeError, RecursionError):
        return ActionFail("the answer is not valid JSON")
    if not isinstance(data, dict):
        return ActionFail(f"the answer is JSON but not an object (got {type(data).__name__})")
    return action_from_dict(data)


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

    target = data["target_character"]
    if target is not None and not isinstance(target, str):
        return ActionFail(f"target_character must be a string or null (got {_show(target)})")
    target = target.strip() if target else None

    volume = data["volume"]
    if action_type == "communicate":
        if volume not in VOLUMES:
            return ActionFail(f"volume must be one of {', '.join(VOLUMES)} to communicate (got {_show(volume)})")
    elif volume is not None and volume not in VOLUMES:
        return ActionFail(f"volume must be one of {', '.join(VOLUMES)} or null (got {_show(volume)})")

    dialogue = data["dialogue"]
    if dialogue is not None and not isinstance(dialogue, str):
        return ActionFail(f"dialogue must be a string (got {_show(dialogue)})")
    dialogue = (dialogue or "").strip()[:MAX_TEXT]

    duration = data["duration_minutes"]
    if (isinstance(duration, bool) or not isinstance(duration, (int, float))
            or (isinstance(duration, float) and not math.isfinite(duration)) or duration != int(duration)):
        return ActionFail(f"duration_minutes must be a whole number of minutes (got {_show(duration)})")
    duration = int(duration)
    if not 1 <= duration <= MAX_DURATION:
        return ActionFail(f"duration_minutes must be between 1 and {MAX_DURATION} (got {duration})")

    monologue = data["internal_monologue"]
    if monologue is not None and not isinstance(monologue, str):
        return ActionFail(f"internal_monologue must be a string (got {_show(monologue)})")
    monologue = (monologue or "").strip()[:MAX_TEXT]

    if action_type == "communicate" and not dialogue:
        return ActionFail("communicate needs a non-empty dialogue")
    if action_type == "communicate" and volume == "whisper" and not target:
        return ActionFail("a whisper needs a target_character")
    if action_type in ("interact", "move", "attack") and not target:
        return ActionFail(f"{action_type} needs a target_character")

    return Action(
        action_type=action_type,
        target=target,
        volume=volume or "normal",
        dialogue=dialogue,
        duration_minutes=duration,
        internal_monologue=monologue,
    )


def _show(value) -> str:
    if isinstance(value, (list, dict)):
        return f"a JSON {'array' if isinstance(value, list) else 'object'}"
    text = json.dumps(value) if not isinstance(value, float) or math.isfinite(value) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."
