"""A survey's prompt: the interview's layout (the agent's mind as it stood at tick T), with the
questionnaire where the question goes and an instruction to answer in one JSON object. Pure."""
from __future__ import annotations

import json

from memories.as_of import MindAt
from voyage.instruments.interview_prompt import interview_messages
from voyage.instruments.questionnaire import CHOICE, CHOICES, NUMBER, SCALE, Item, Questionnaire

INSTRUCTION = ("Someone hands you a questionnaire. Answer every question as yourself, from what you know of "
               "yourself and remember here and nothing else. You may be unsure or mistaken, as you are.")
HEADER = "The questionnaire:"


def _how(item: Item) -> str:
    if item.kind == SCALE:
        low = f" ({item.low_label})" if item.low_label else ""
        high = f" ({item.high_label})" if item.high_label else ""
        return f"a whole number from {item.low}{low} to {item.high}{high}"
    if item.kind == CHOICE:
        return "exactly one of " + ", ".join(json.dumps(o, ensure_ascii=False) for o in item.options)
    if item.kind == CHOICES:
        return "a list of those that apply, of " + ", ".join(json.dumps(o, ensure_ascii=False) for o in item.options)
    if item.kind == NUMBER:
        return f"a number from {item.low} to {item.high}"
    return "a few sentences of text"


def questionnaire_text(q: Questionnaire) -> str:
    lines = [q.title]
    lines += [f"{n}. [{item.id}] {item.text} — {_how(item)}" for n, item in enumerate(q.items, 1)]
    keys = ", ".join(json.dumps(item.id) for item in q.items)
    lines.append(f"Answer with one JSON object with exactly these keys: {keys}; nothing before or after it.")
    return "\n".join(lines)


def recall_words(q: Questionnaire) -> str:
    """The words that bring older memories back (as an interview's question does)."""
    return " ".join([q.title, *(item.text for item in q.items)])


def survey_messages(mind: MindAt, identity: str, q: Questionnaire, rungs) -> list[dict]:
    return interview_messages(mind, identity, questionnaire_text(q), rungs, instruction=INSTRUCTION, header=HEADER)
