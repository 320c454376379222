"""What a drafted world may ask for, checked before any model call. Pure."""
from __future__ import annotations

from dataclasses import dataclass

MAX_PARAGRAPH = 4000  # characters of the storyteller's paragraph
MAX_PEOPLE, MAX_ROOMS = 24, 30
MIN_PEOPLE, MIN_ROOMS = 2, 3
DEFAULT_PEOPLE, DEFAULT_ROOMS = 6, 8
MAX_REPAIR_ROUNDS = 5
DEFAULT_REPAIR_ROUNDS = 3


@dataclass(frozen=True)
class DraftAsk:
    """What the storyteller asked for: the paragraph and the world's sizes (at most these)."""

    paragraph: str
    people: int = DEFAULT_PEOPLE
    rooms: int = DEFAULT_ROOMS
    repair_rounds: int = DEFAULT_REPAIR_ROUNDS


def ask_problems(ask: DraftAsk) -> list[str]:
    """Why the ask is refused before any call (empty: it is not)."""
    problems = []
    text = ask.paragraph.strip()
    if not text:
        problems.append("the paragraph is empty: describe the place and its people")
    elif len(text) > MAX_PARAGRAPH:
        problems.append(f"the paragraph has {len(text)} characters; at most {MAX_PARAGRAPH}")
    if not MIN_PEOPLE <= ask.people <= MAX_PEOPLE:
        problems.append(f"--people {ask.people}: between {MIN_PEOPLE} and {MAX_PEOPLE}")
    if not MIN_ROOMS <= ask.rooms <= MAX_ROOMS:
        problems.append(f"--rooms {ask.rooms}: between {MIN_ROOMS} and {MAX_ROOMS}")
    if ask.rooms < (ask.people + 1) // 2 + 1:
        problems.append(f"--rooms {ask.rooms} cannot house {ask.people} people two to a home with a room to meet in: "
                        f"ask for at least {(ask.people + 1) // 2 + 1} rooms")
    if not 0 <= ask.repair_rounds <= MAX_REPAIR_ROUNDS:
        problems.append(f"--repair-rounds {ask.repair_rounds}: between 0 and {MAX_REPAIR_ROUNDS}")
    return problems
