"""How an answer in JSON is asked of an endpoint, per the model profile's `structured_output`:

- none: the endpoint has no JSON mode; the prompt asks for JSON and the answer's first JSON object
  is taken (code fences and prose around it ignored);
- json_object: response_format {"type": "json_object"} (OpenAI's older mode; no schema);
- json_schema: {"type": "json_schema", "json_schema": {"name", "schema", "strict"}} (OpenAI, vLLM,
  OpenRouter, llama.cpp's own llama-server);
- json_object_schema: {"type": "json_object", "schema": ...}, the form llama-cpp-python's server takes.

A request with no schema of its own (a trust call) gets plain json_object from the schema forms. Pure.
"""
from __future__ import annotations

NONE, JSON_OBJECT, JSON_SCHEMA, JSON_OBJECT_SCHEMA = "none", "json_object", "json_schema", "json_object_schema"
FORMS = (NONE, JSON_OBJECT, JSON_SCHEMA, JSON_OBJECT_SCHEMA)
SCHEMA_NAME = "voyage_action"


def takes_schema(form: str) -> bool:
    """Whether requests in this form carry the call's schema (the engine builds one only then)."""
    return form in (JSON_SCHEMA, JSON_OBJECT_SCHEMA)


def response_format(form: str, schema: dict | None) -> dict | None:
    """The response_format member of the request body, or None when the endpoint has no JSON mode."""
    if form not in FORMS:
        raise ValueError(f"unknown structured output form {form!r}; known: {', '.join(FORMS)}")
    if form == NONE:
        return None
    if schema is None or not takes_schema(form):
        return {"type": "json_object"}
    if form == JSON_SCHEMA:
        return {"type": "json_schema", "json_schema": {"name": SCHEMA_NAME, "schema": schema, "strict": True}}
    return {"type": "json_object", "schema": schema}
