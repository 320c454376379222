"""How an answer in JSON is asked of an endpoint, per the model profile's `structured_output`:

- none: the endpoint has no JSON mode; the prompt asks for JSON and the answer's first JSON object
  is taken (code fences and prose around it ignored);
- json_object: response_format {"type": "json_object"} (OpenAI's older mode; no schema);
- json_schema: {"type": "json_schema", "json_schema": {"name", "schema", "strict"}} (OpenAI, vLLM,
  OpenRouter, llama.cpp's own llama-server);
- json_object_schema: {"type": "json_object", "schema": ...}, the form llama-cpp-python's server takes.

A request with no schema of its own (a trust call) gets plain json_object from the schema forms.

An endpoint that does not take a form says so with an HTTP error (llama-cpp-python's server answers
json_schema with a 500 whose body reads `literal_error: Input should be 'text' or 'json_object'`):
`refuses_form` tells such an answer from a transient fault, since retrying cannot help. Pure.
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


# What an error body says when it is about the structured-output form of the request, in each
# provider's words (tests/gateway/test_provider_refusals.py holds one message of each):
# - OpenAI: "Invalid schema for response_format 'voyage_action': ..." (strict rules, "Objects provided
#   via 'anyOf' must not share identical first keys"), "'messages' must contain the word 'json' in some
#   form, to use 'response_format' of type 'json_object'";
# - vLLM / SGLang: "The provided JSON schema contains features not supported by xgrammar", a grammar
#   that fails to compile;
# - Ollama: "invalid JSON schema in format"; LM Studio: "'response_format.type' must be 'json_schema'
#   or 'text'"; llama-cpp-python: a pydantic literal_error on response_format.type; llama-server:
#   "JSON schema conversion failed"; Gemini: an unknown name in "response_schema".
FORM_WORDS = ("response_format", "json_schema", "json schema", "json_object", "literal_error", "guided_json",
              "grammar", "response_schema")
NOT_ABOUT_THE_FORM = {401, 403, 404, 408, 409, 413, 429}  # a key, a route, a timeout, a size, a rate
# OpenRouter, with provider.require_parameters, answers 404 when no provider of the model takes every
# parameter of the request (response_format among them): no retry finds one either.
ROUTED_NOWHERE = "no endpoints found that can handle the requested parameters"


def refuses_form(status: int, body: str) -> bool:
    """Whether an HTTP error refuses the request's structured-output form: a 4xx (but an
    authentication, route, timeout, size or rate error), or a 500 or 501, whose body names the form,
    its schema or response_format; or OpenRouter finding no provider that takes the request's parameters."""
    text = (body or "").lower()
    if status == 404 and ROUTED_NOWHERE in text:
        return True
    if status in NOT_ABOUT_THE_FORM or not (400 <= status < 500 or status in (500, 501)):
        return False
    return any(word in text for word in FORM_WORDS)
