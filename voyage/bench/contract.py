"""How a model keeps the action contract, measured on a run's recorded action calls. Pure but for
the queries in `fail_reasons` and `parroted_share`.

- `reason_shape`: an ACTION_FAIL reason with the run's names replaced by placeholders (<person>,
  <item>, <room>, <target> for a name the agent made up, <value> for what it wrote), so the same
  mistake made about two rooms counts once;
- `copies_rules`: whether an answer's dialogue copies the text of the rules or of the turn's
  guide (the allowed actions and the example answer), e.g. a placeholder read as something to say;
- `copies_example`: whether the answer IS the turn's example answer, key for key (a valid action,
  but not the model's own choice);
- `action_mix`: how many answers chose each action type.
"""
from __future__ import annotations

import json
import re
from collections import Counter

from voyage.health.answers import EXAMPLE, copies_example, reason_shape  # noqa: F401  (shared with model health)

IDENTITY = "Your state of mind"  # where the rules end in an action prompt's system message (memories.identity)
NO_LONGER_HERE = "no longer here"  # the reason a tick-start snapshot cannot prevent (simultaneous)
COPY_RUN = 24  # characters of dialogue found verbatim in the rules or guide: a copy, not a coincidence
GUIDE = re.compile(r"^(Actions you may take now|An example of the form).*$", re.M)


def fail_reasons(calls, people=(), items=(), rooms=()) -> dict[str, int]:
    """ACTION_FAIL reason shape -> count, most frequent first."""
    counts = Counter(reason_shape(c.detail, people, items, rooms) for c in calls)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def dialogue_of(raw: str) -> str:
    """The dialogue an answer wrote, if it wrote one (raw control characters allowed here)."""
    try:
        data = json.loads(raw, strict=False)
    except (ValueError, RecursionError):
        return ""
    said = data.get("dialogue") if isinstance(data, dict) else None
    return said.strip() if isinstance(said, str) else ""


def rules_and_guide(messages: list[dict]) -> str:
    """The text of an action prompt that tells the model how to answer: the rules its system message
    opens with, and the guide lines closing its turn."""
    rules = messages[0]["content"].split(IDENTITY)[0] if messages else ""
    guide = [m.group(0) for m in GUIDE.finditer(messages[-1]["content"])] if messages else []
    return "\n".join([rules, *guide])


def copies_rules(dialogue: str, messages: list[dict]) -> bool:
    """Whether `dialogue` holds COPY_RUN characters in a row of the rules or the prompt's guide (or,
    shorter than that, is a dozen characters or more of it)."""
    reference = " ".join(rules_and_guide(messages).split())
    text = " ".join(dialogue.split())
    if len(text) < COPY_RUN:
        return bool(text) and len(text) >= 12 and text in reference
    return any(text[i:i + COPY_RUN] in reference for i in range(0, len(text) - COPY_RUN + 1))


def parroted_share(calls) -> float:
    """Among answered action calls, the share whose dialogue copies the rules or the guide."""
    answered = [c for c in calls if c.answered]
    if not answered:
        return 0.0
    copied = sum(copies_rules(dialogue_of(c.raw_answer), c.prompt) for c in answered)
    return round(copied / len(answered), 4)


def example_share(calls) -> float:
    """Among answered action calls, the share that are the turn's example answer, key for key."""
    answered = [c for c in calls if c.answered]
    copied = sum(copies_example(c.raw_answer, c.prompt) for c in answered)
    return round(copied / len(answered), 4) if answered else 0.0


def action_mix(calls) -> dict[str, int]:
    """Among answered action calls, action_type -> count, most frequent first; an answer without a
    readable action_type counts as "?"."""
    counts = Counter()
    for c in calls:
        if not c.answered:
            continue
        try:
            data = json.loads(c.raw_answer, strict=False)
        except (ValueError, RecursionError):
            data = None
        kind = data.get("action_type") if isinstance(data, dict) else None
        counts[kind if isinstance(kind, str) else "?"] += 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
