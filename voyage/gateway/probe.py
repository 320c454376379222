"""Which structured-output forms an endpoint takes: one small request in each form, through the
same client and request body a run would send (the admin's "test this endpoint" button).

Each form gets a verdict: it takes it (an answer came back, a JSON object for the JSON forms), it
refuses it (the error a run would pause on: structured.refuses_form), or the call failed otherwise
(a key, a route, a timeout: then nothing is known of the form).
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

from voyage.gateway import structured
from voyage.gateway.base import ACTION, FormRefused, GatewayConfigError, ModelRequest

PROBE_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
                "additionalProperties": False}
PROBE_MESSAGES = [{"role": "user", "content": 'Answer with the JSON object {"ok": true} and nothing else.'}]
TAKES, REFUSES, FAILED = "takes it", "refuses it", "failed"


@dataclass(frozen=True)
class Verdict:
    form: str
    outcome: str  # TAKES, REFUSES or FAILED
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.form}: {self.outcome}" + (f" ({self.detail})" if self.detail else "")


def probe_forms(config, forms=structured.FORMS) -> list[Verdict]:
    """One request per form on the endpoint `config` (a GatewayConfig) names; no retries."""
    from voyage.gateway.openai_client import OpenAIGateway

    verdicts = []
    for form in forms:
        trial = dataclasses.replace(config, structured_output=form, retries=0, max_tokens=24, concurrency=1)
        request = ModelRequest(purpose=ACTION, messages=PROBE_MESSAGES, tick=0,
                               schema=PROBE_SCHEMA if structured.takes_schema(form) else None)
        try:
            gateway = OpenAIGateway(trial)
        except GatewayConfigError as exc:
            return [Verdict(f, FAILED, str(exc)) for f in forms]
        try:
            verdicts.append(_verdict(form, gateway.complete(request)))
        except FormRefused as exc:
            verdicts.append(Verdict(form, REFUSES, exc.detail))
        finally:
            gateway.close()
    return verdicts


def _verdict(form: str, answer) -> Verdict:
    if answer.failed:
        return Verdict(form, FAILED, answer.error[:200])
    if form == structured.NONE:
        return Verdict(form, TAKES)
    try:
        ok = isinstance(json.loads(answer.text), dict)
    except ValueError:
        ok = False
    return Verdict(form, TAKES) if ok else Verdict(form, FAILED, f"answered, but not with a JSON object: {answer.text[:80]!r}")
