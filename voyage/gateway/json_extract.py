"""Finding the JSON object in a model's answer, for endpoints without a JSON mode. Pure.

Such endpoints are asked for JSON in the prompt and often wrap it: a code fence, a sentence before
or after. The first complete JSON object in the text is taken as the answer; the action contract
(world/rules/actions.py) then judges it like any other.
"""
from __future__ import annotations

import json

_decoder = json.JSONDecoder()


def extract_json_object(text: str) -> str | None:
    """The first substring of `text` that is a whole JSON object, or None."""
    start = text.find("{")
    while start != -1:
        try:
            value, end = _decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return text[start:end]
        start = text.find("{", end)
    return None


def parse_json_object(text: str | None) -> dict | None:
    """The first JSON object in a model's answer, parsed; None if there is none."""
    found = extract_json_object(text) if text else None
    return json.loads(found) if found is not None else None
