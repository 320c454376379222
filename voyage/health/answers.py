"""One recorded action call, read for model health: what the answer chose, what the turn's example
answer was and which actions the turn allowed (both read off the prompt's guide lines,
world.rules.prompt_text.turn_guide), and the ACTION_FAIL reason. Pure.

`reason_shape` puts placeholders for the run's names in a reason (<person>, <item>, <room>,
<target> for a name the agent made up, <value> for what it wrote), so the same mistake made about
two rooms counts once.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

from world.rules.actions import IGNORED, set_aside

EXAMPLE = re.compile(r"^An example of the form[^{]*(\{.*\})$", re.M)
ALLOWED = re.compile(r"^Actions you may take now(?:, and what each names)?: (.*)\.$", re.M)
ACTION_FAIL = "action_fail"
GUIDE_START = "Actions you may take now"


@dataclass(frozen=True)
class ActionCall:
    """What health needs of one LLMCall row of purpose action."""
    id: int
    agent: str  # the persona key
    tick: int
    answered: bool
    outcome: str
    detail: str = ""
    raw: str = ""
    example: dict | None = None  # the turn's example answer, as its prompt showed it
    allowed: tuple[str, ...] = ()  # the actions its prompt said it could take now
    profile: str = ""  # the model profile that answered it ("" where none was named)


def parsed(raw: str) -> dict | None:
    """The answer as a JSON object, or None (raw control characters allowed, as the parser does)."""
    try:
        data = json.loads(raw, strict=False)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def example_in(last_message: str) -> dict | None:
    found = EXAMPLE.search(last_message)
    if not found:
        return None
    try:
        return json.loads(found.group(1))
    except ValueError:
        return None


def allowed_in(last_message: str) -> tuple[str, ...]:
    found = ALLOWED.search(last_message)
    if not found:
        return ()
    return tuple(part.split(" (", 1)[0].strip() for part in found.group(1).split("; ") if part.strip())


def fills_ignored(answer: dict | None) -> bool:
    """Whether the answer set a key its action does not use (a volume or words on a move: the
    engine sets them aside, world.rules.actions.IGNORED)."""
    kind = answer.get("action_type") if answer else None
    if kind not in IGNORED:
        return False
    said = answer.get("dialogue")
    return bool(set_aside(kind, answer.get("volume"), said.strip() if isinstance(said, str) else ""))


def copies_example(raw: str, messages: list[dict]) -> bool:
    """Whether the answer IS the turn's example answer, key for key (valid, but not the model's choice)."""
    example = example_in(messages[-1]["content"]) if messages else None
    return example is not None and parsed(raw) == example


def reason_shape(reason: str, people=(), items=(), rooms=()) -> str:
    shape = re.sub(r"\(got .*\)$", "(got <value>)", reason)
    shape = re.sub(r"someone \(unknown \d+\)", "<person>", shape)
    shape = re.sub(r"indistinct object \d+", "<item>", shape)
    for names, placeholder in ((people, "<person>"), (items, "<item>"), (rooms, "<room>")):
        for name in sorted(names, key=len, reverse=True):
            shape = shape.replace(name, placeholder)
    return re.sub(r"unknown target '[^']*'", "unknown target '<target>'", shape)
