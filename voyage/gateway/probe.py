"""Which structured-output forms an endpoint takes, and whether it holds the answer to the schema:
one request per form, through the same client and request body a run would send (the admin's
"Test this endpoint" button and `manage.py endpoint check`).

The schema forms carry a real action schema, of a sample turn, in the profile's dialect; the
message asks for an answer that schema forbids ({"probe": "free"}). So each form gets one of:
- "takes it and enforces it": the answer keeps the schema (the endpoint held the model to it);
- "takes it but ignores the schema": an answer came back outside it (vLLM with a schema inside
  json_object, Anthropic's endpoint, OpenRouter routing to a provider that drops it);
- "refuses it": the error a run would pause on (structured.refuses_form), in the provider's words;
- "failed": the call failed otherwise (a key, a route, a timeout): nothing is known of the form.
`none` and `json_object` send no schema: they are "takes it" when an answer (a JSON object, for
json_object) came back.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

import jsonschema

from voyage.gateway import structured
from voyage.gateway.base import ACTION, FormRefused, GatewayConfigError, ModelRequest
from world.rules.perception import Person, Place, Thing, perceive
from world.rules.schema_dialects import schema_in

PROBE_MESSAGES = [{"role": "user", "content": 'This is a test of the endpoint. Answer with the JSON object '
                                              '{"probe": "free"} and nothing else.'}]
TAKES, ENFORCES, IGNORES, REFUSES, FAILED = ("takes it", "takes it and enforces it", "takes it but ignores the schema",
                                             "refuses it", "failed")
PROBE_TOKENS = 300  # room for a whole action answer: a cut one would look like an ignored schema


def sample_schema(dialect: str) -> dict:
    """The action schema of a sample turn (two people, an item, a way out; every action allowed)."""
    here, out = Place(1, "Salon"), Place(2, "Deck")
    seen = perceive(agent_id=0, rung=1, knows=frozenset({"item_names", "people_names"}), room=here,
                    room_description="", scale="vast", ambient_noise="low",
                    people=[Person(10, "Ada"), Person(11, "Bert")], things=[Thing(20, "Pocket watch")], exits=[out],
                    rooms_by_name={"Salon": 1, "Deck": 2})
    return schema_in(dialect, seen, ("interact", "move", "communicate", "sleep", "attack"), ("Deck",))


@dataclass(frozen=True)
class Verdict:
    form: str
    outcome: str  # TAKES, ENFORCES, IGNORES, REFUSES or FAILED
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.form}: {self.outcome}" + (f" ({self.detail})" if self.detail else "")

    def as_dict(self) -> dict:
        return {"form": self.form, "outcome": self.outcome, "detail": self.detail}


def probe_forms(config, forms=structured.FORMS) -> list[Verdict]:
    """One request per form on the endpoint `config` (a GatewayConfig) names; no retries."""
    from voyage.gateway.openai_client import OpenAIGateway  # lazy: the OpenAI SDK loads only for a probe

    schema = sample_schema(config.schema_dialect)
    verdicts = []
    for form in forms:
        trial = dataclasses.replace(config, structured_output=form, retries=0, concurrency=1,
                                    max_tokens=max(config.max_tokens, PROBE_TOKENS))
        sent = schema if structured.takes_schema(form) else None
        request = ModelRequest(purpose=ACTION, messages=PROBE_MESSAGES, tick=0, schema=sent)
        try:
            gateway = OpenAIGateway(trial)
        except GatewayConfigError as exc:
            return [Verdict(f, FAILED, str(exc)) for f in forms]
        try:
            verdicts.append(_verdict(form, gateway.complete(request), sent))
        except FormRefused as exc:
            verdicts.append(Verdict(form, REFUSES, exc.detail))
        finally:
            gateway.close()
    return verdicts


def _verdict(form: str, answer, schema: dict | None) -> Verdict:
    if answer.failed:
        return Verdict(form, FAILED, answer.error[:200])
    if form == structured.NONE:
        return Verdict(form, TAKES)
    try:
        value = json.loads(answer.text)
    except ValueError:
        value = None
    if schema is None:
        if isinstance(value, dict):
            return Verdict(form, TAKES)
        return Verdict(form, FAILED, f"answered, but not with a JSON object: {answer.text[:80]!r}")
    if jsonschema.Draft202012Validator(schema).is_valid(value):
        return Verdict(form, ENFORCES)
    return Verdict(form, IGNORES, f"answered outside the action schema it was sent: {answer.text[:80]!r}")
