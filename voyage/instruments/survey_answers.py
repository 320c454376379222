"""A questionnaire's answer: its JSON schema (the call asks for it) and the parser that holds each
item's answer to its kind (what comes back is judged here, whatever the endpoint enforced). Pure.

The schema keeps OpenAI's strict structured-output rules — an object at the root, every property
required, additionalProperties false, only documented keywords (type, enum, items, minimum, maximum,
description), a fixed set of values written as an enum — and uses nothing a grammar engine
(llama.cpp's json-schema-to-grammar) cannot enforce: a scale is an enum of its whole numbers.

The parser never guesses: an answer outside its item's kind is recorded as missing, with the reason
(`Parsed.missing`); the rest of the answer still counts."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

from voyage.gateway.json_extract import parse_json_object
from voyage.instruments.questionnaire import CHOICE, CHOICES, NUMBER, SCALE, Item, Questionnaire

MAX_TEXT_ANSWER = 2_000


def item_schema(item: Item) -> dict:
    if item.kind == SCALE:
        return {"type": "integer", "enum": list(range(item.low, item.high + 1)),
                "description": f"{item.low} = {item.low_label or 'least'}, {item.high} = {item.high_label or 'most'}"}
    if item.kind == CHOICE:
        return {"type": "string", "enum": list(item.options), "description": "exactly one of the options"}
    if item.kind == CHOICES:
        return {"type": "array", "items": {"type": "string", "enum": list(item.options)},
                "description": "every option that applies, each once (none: an empty list)"}
    if item.kind == NUMBER:
        return {"type": "number", "minimum": item.low, "maximum": item.high,
                "description": f"a number from {item.low} to {item.high}"}
    return {"type": "string", "description": f"a few sentences, at most {MAX_TEXT_ANSWER} characters"}


def answer_schema(questionnaire: Questionnaire) -> dict:
    """One object, a property per item (in the questionnaire's order), all required, nothing else."""
    return {"type": "object", "properties": {i.id: item_schema(i) for i in questionnaire.items},
            "required": [i.id for i in questionnaire.items], "additionalProperties": False}


@dataclass(frozen=True)
class Parsed:
    values: dict  # item id -> its answer, held to its kind (only the items answered)
    missing: dict  # item id -> why it counts as missing


def check_item(item: Item, value) -> tuple[object, str]:
    """(the answer, "") if it fits the item's kind, else (None, why not)."""
    if item.kind == SCALE:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value != int(value):
            return None, f"not a whole number on the scale: {_show(value)}"
        if not item.low <= value <= item.high:
            return None, f"{_show(value)} is off the scale {item.low}-{item.high}"
        return int(value), ""
    if item.kind == CHOICE:
        if value not in item.options:
            return None, f"not one of the options: {_show(value)}"
        return value, ""
    if item.kind == CHOICES:
        if not isinstance(value, list):
            return None, f"not a list of options: {_show(value)}"
        strange = [v for v in value if v not in item.options]
        if strange:
            return None, f"not among the options: {_show(strange[0])}"
        if len(set(value)) != len(value):
            return None, "an option is chosen twice"
        return [o for o in item.options if o in value], ""  # the questionnaire's order
    if item.kind == NUMBER:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return None, f"not a number: {_show(value)}"
        if not item.low <= value <= item.high:
            return None, f"{_show(value)} is outside the range {item.low}-{item.high}"
        return value, ""
    if not isinstance(value, str) or not value.strip():
        return None, f"no text: {_show(value)}"
    if len(value) > MAX_TEXT_ANSWER:
        return None, f"longer than {MAX_TEXT_ANSWER} characters ({len(value)})"
    return value.strip(), ""


def parse_answer(questionnaire: Questionnaire, text: str | None, error: str = "") -> Parsed:
    """Each item's answer from the model's text (its first JSON object), or why it is missing."""
    if text is None:
        why = f"no answer from the model: {error}" if error else "no answer from the model"
        return Parsed({}, {i.id: why for i in questionnaire.items})
    data = parse_json_object(text)
    if data is None:
        return Parsed({}, {i.id: "the answer holds no JSON object" for i in questionnaire.items})
    values, missing = {}, {}
    for item in questionnaire.items:
        if item.id not in data:
            missing[item.id] = "not answered (no such key)"
            continue
        value, why = check_item(item, data[item.id])
        if why:
            missing[item.id] = why
        else:
            values[item.id] = value
    return Parsed(values, missing)


def _show(value) -> str:
    shown = json.dumps(value, ensure_ascii=False)
    return shown if len(shown) <= 80 else shown[:79] + "…"
