"""The text of the rules every action prompt opens with (its stable prefix), and the few lines that
close each turn's prompt: the actions allowed now and one example answer built for this agent's
rung and situation. Pure.

The answer format names the six keys and says what each takes in plain sentences, with no JSON
template of placeholder strings: small models copied such placeholders into their dialogue. The
one example a turn shows is a whole answer of the right shape, in the agent's own situation, naming
only what its prompt names and saying nothing of any scenario. It is not always the same action:
a model that copies it (SmolLM2-135M does) would otherwise have every agent do the same thing.
"""
from __future__ import annotations

import hashlib
import json

from world.rules.action_schema import has_branch, people_here, rooms_in_reach
from world.rules.actions import DURATIONS, KEYS, MAX_TEXT
from world.rules.perception import Situation

RULES_PREAMBLE = f"""You are living one turn at a time in a place you must make sense of. Each turn is three minutes.
Answer every turn with ONE JSON object with exactly these six keys and nothing else: {", ".join(KEYS)}.
Use only an action your turn allows, and name people, items and rooms exactly as your turn shows them.
Only communicate takes a volume (whisper, normal or shout) and dialogue, the words you say; any other
action has volume null and dialogue "". Sleep names nobody: its target_character is null.
duration_minutes is one of {", ".join(map(str, DURATIONS))}.
dialogue and internal_monologue (your private thought) are in your own words, one line each, at most
{MAX_TEXT} characters.
The rules of this place:
"""
# One rule line per action, in this order; a prompt lists only those its agent's rung allows.
ACTION_RULES = {
    "move": "- move: name any room; you walk one room per turn along the shortest way. Others see you come and go.\n",
    "interact": "- interact: examine an item here, or approach a person here. Some items tell you who you are.\n",
    "communicate": """- communicate: speak to a person here (target) or to the room (target null). In a small room everyone
  hears everything. In a vast room a shout is heard by all, normal speech only by its target (others
  see you talking), and a whisper only by its target (others see that you whispered). Noisy rooms mask
  whispers; a shout carries into quiet rooms next door.
""",
    "sleep": "- sleep: rest for duration_minutes. Sleepers hear nothing but a shout.\n",
    "attack": "- attack: strike a person here. It may kill. Everyone awake in the room will see it.\n",
}
RULES_CLOSE = "An answer that breaks these rules is an ACTION_FAIL: you lose the turn and remember why.\n"


def rules_text(allowed_actions=tuple(ACTION_RULES)) -> str:
    """The rules a prompt opens with, listing only the actions in `allowed_actions` (the agent's
    rung's): an action its rung forbids is never offered, and the engine still refuses it."""
    return RULES_PREAMBLE + "".join(line for a, line in ACTION_RULES.items() if a in allowed_actions) + RULES_CLOSE


RULES = rules_text()  # every action: the zlib dictionary stored prompts are compressed against

WHAT_EACH_NAMES = {
    "move": "a room: a way out, or a room you know by name",
    "interact": "a person or an item here",
    "communicate": "a person here, or null to speak to the room",
    "sleep": "null",
    "attack": "a person here",
}


def allowed_now(situation: Situation, allowed_actions: tuple[str, ...], rooms: tuple[str, ...] = ()) -> list[str]:
    """The actions the agent's rung allows that have something to aim at here (as in its schema)."""
    return [a for a in allowed_actions if has_branch(a, situation, rooms)]


# The example answers a turn may show, one per kind: (action, duration, volume, dialogue, thought).
# No attack: an example must not suggest striking anyone. No sleep either, unless nothing else is
# possible: a small model copies the example, and a quarter of its turns asleep for ten ticks would
# leave most agents asleep most of the day.
EXAMPLES = (
    ("interact", 3, None, "", "I want a closer look at this."),
    ("move", 3, None, "", "I will see what lies that way."),
    ("communicate", 3, "normal", "Hello.", "I want to hear what they say."),
)
FALLBACK = ("sleep", 30, None, "", "I need to rest.")  # when the rung allows none of them here


def example_targets(situation: Situation, allowed_actions: tuple[str, ...]) -> list[tuple[tuple, list]]:
    """The example kinds this turn allows, each with what it may name here."""
    people = people_here(situation)
    names = {"interact": [label for label, _ in situation.things] + people, "move": rooms_in_reach(situation),
             "communicate": people}
    return [(shape, names[shape[0]]) for shape in EXAMPLES if shape[0] in allowed_actions and names[shape[0]]]


def example_answer(situation: Situation, allowed_actions: tuple[str, ...], key: str = "") -> dict:
    """One valid answer of the right shape for this situation, chosen by a stable hash of `key` (the
    agent's key and the tick; never the run's RNG, whose draws make the transcript), so agents and
    turns see different examples: first the kind (examine or approach something here, walk a way
    out, speak to a person here) among those this turn allows, then what it names; sleep only when
    none of them is possible here. Never an attack."""
    digest = hashlib.sha256(key.encode()).digest()
    options = example_targets(situation, allowed_actions) or [(FALLBACK, [None])]
    shape, targets = options[int.from_bytes(digest[:8], "big") % len(options)]
    action_type, minutes, volume, dialogue, thought = shape
    target = targets[int.from_bytes(digest[8:16], "big") % len(targets)]
    return {"action_type": action_type, "target_character": target, "volume": volume, "dialogue": dialogue,
            "duration_minutes": minutes, "internal_monologue": thought}


# What example answer a turn shows (the run's `example_answer`): the rotating one above (the default),
# a neutral one that names no one and nothing here, or none (the allowed actions alone).
ROTATING, NEUTRAL, NO_EXAMPLE = "rotating", "neutral", "none"
EXAMPLE_MODES = (ROTATING, NEUTRAL, NO_EXAMPLE)
NEUTRAL_SHAPE = ("communicate", 3, "normal", "Good day.", "I will say something and see who answers.")


def neutral_example(allowed_actions: tuple[str, ...]) -> dict:
    """The same answer for every agent and turn, naming no one: a word to the whole room (always a
    branch of the schema where communicate is allowed), or else a short sleep."""
    action_type, minutes, volume, dialogue, thought = NEUTRAL_SHAPE if "communicate" in allowed_actions else FALLBACK
    return {"action_type": action_type, "target_character": None, "volume": volume, "dialogue": dialogue,
            "duration_minutes": minutes, "internal_monologue": thought}


def names_line(allowed_actions: tuple[str, ...]) -> str:
    """What each action the rung allows names: the half of the turn guide that changes only with the
    rung, which the cached layout states once, in its system message, instead of every turn. Sleep is
    left out: the rules' own words already say it names nobody."""
    named = [f"{a} ({WHAT_EACH_NAMES[a]})" for a in allowed_actions if a != "sleep"]
    return "What each action names: " + "; ".join(named) + "." if named else ""


def turn_guide(situation: Situation, allowed_actions: tuple[str, ...], rooms: tuple[str, ...] = (),
               key: str = "", example: str = ROTATING, compact: bool = False) -> str:
    """The lines before "Your turn": the actions allowed now, and the example answer (`key`: what
    picks the rotating one, e.g. "<agent key>:<tick>"; `example`: which one, EXAMPLE_MODES). `compact`
    is the cached layout's form, the same content in fewer characters: the actions alone (its system
    message says what each names, names_line) and the example's JSON without spaces."""
    now = allowed_now(situation, allowed_actions, rooms)
    if compact:
        line = "Actions you may take now: " + "; ".join(now) + "."
    else:
        line = "Actions you may take now, and what each names: " + "; ".join(
            f"{a} ({WHAT_EACH_NAMES[a]})" for a in now) + "."
    if example == NO_EXAMPLE:
        return line
    shown = neutral_example(allowed_actions) if example == NEUTRAL else example_answer(situation, allowed_actions, key)
    written = json.dumps(shown, ensure_ascii=False, separators=(",", ":") if compact else None)
    return line + f"\nAn example of the form only (choose your own action): {written}"
