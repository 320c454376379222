"""The model gateway: one interface for every call purpose.

The offline scripted policy, the OpenAI-compatible client and replay are implementations of it;
the engine never knows which one it talks to.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Generator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

ACTION = "action"
REFLECTION = "reflection"
TRUST = "trust"
COMPACTION = "compaction"
ERA = "era"
BULLETIN = "bulletin"
DREAM = "dream"
DIARY = "diary"
IMPORTANCE = "importance"
INTERVIEW = "interview"  # staff asking an agent a question (voyage/instruments): never part of the run
SURVEY = "survey"  # an agent answering a questionnaire (voyage/instruments/surveys.py): never part of the run
JUDGE = "judge"  # a model judging what a run committed (voyage/judging): never part of the run
AUTHOR = "author"  # drafting a scenario from a paragraph (voyage/drafting): never part of a run
PURPOSES = (ACTION, REFLECTION, TRUST, COMPACTION, ERA, BULLETIN, DREAM, DIARY, IMPORTANCE, INTERVIEW, SURVEY, JUDGE,
            AUTHOR)
INSTRUMENT_PURPOSES = (INTERVIEW, SURVEY, JUDGE)  # asked of the run from outside: no budget, no replay, no transcript
REASONING_DEFAULTS = {ACTION: False, TRUST: True, COMPACTION: True, ERA: True, DREAM: True}


@dataclass(frozen=True)
class ModelRequest:
    purpose: str
    messages: list[dict]
    tick: int
    agent_id: int | None = None
    agent_key: str | None = None  # the persona key: stable across runs, used by replay and the offline policy
    # Structured facts for the offline policy: the same facts the prompt shows, never more.
    hints: Any = field(default=None, compare=False)
    # The JSON schema of the answer (actions: world.rules.action_schema), for endpoints that take one.
    schema: dict | None = field(default=None, compare=False)
    recalled: tuple[int, ...] = ()  # memory rows the context builder recalled into the prompt (action calls)


@dataclass
class ModelAnswer:
    text: str | None
    error: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0
    latency_ms: float = 0.0
    attempts: int = 1
    cost: float = 0.0
    profile: str = ""  # the model profile that gave it (gateway/routing.py; empty: the offline policy)

    @property
    def failed(self) -> bool:
        return self.text is None


class GatewayConfigError(RuntimeError):
    """The model profile cannot be used as it stands (its key variable is not set, its endpoint does
    not take its structured-output form): no retry can help; the run pauses with this message."""


class FormRefused(GatewayConfigError):
    """The endpoint refused the structured-output form the profile sends."""

    def __init__(self, profile: str, form: str, detail: str):
        self.profile, self.form, self.detail = profile, form, detail
        super().__init__(f"model profile {profile!r}: the endpoint refuses structured output {form!r} ({detail}); "
                         "choose another form on the profile")


class Gateway(ABC):
    """One call, a batch that an implementation may run concurrently, or a call started now and
    collected later (so a caller can go on building the next prompt while it is in flight)."""

    name = "gateway"
    takes_schema = False  # whether it sends a request's JSON schema (the engine builds none otherwise)
    schema_dialect = "anyof"  # which JSON-schema dialect it sends (world.rules.schema_dialects)
    # Answers in the caller's thread, at once (the offline policy, replay): no call is ever out, so
    # the out-of-order schedule has nothing to overlap, and the engine keeps to lock-step.
    answers_at_once = False

    def action_shape(self, agent_key: str | None) -> tuple[bool, str]:
        """For this agent's action call: whether it carries a schema, and in which dialect. One
        endpoint answers every agent alike; a run on several profiles asks the one that agent's
        actions go to (routing.py)."""
        return self.takes_schema, self.schema_dialect

    @abstractmethod
    def complete(self, request: ModelRequest) -> ModelAnswer: ...

    def complete_many(self, requests: list[ModelRequest]) -> list[ModelAnswer]:
        return [self.complete(r) for r in requests]

    def start(self, request: ModelRequest) -> Future:
        """The call under way; its `.result()` is the answer. By default it is answered at once, in
        the caller's thread (the offline model and replay need nothing more)."""
        done = Future()
        done.set_result(self.complete(request))
        return done

    def close(self) -> None:
        pass


def answered(steps: Generator, gateway: Gateway):
    """Run `steps` to its end on the gateway: a generator that yields the batches of requests it
    needs answered and is sent their answers (the out-of-order schedule, voyage/engine/ahead.py,
    sends them when they are in, without waiting); its return value."""
    try:
        requests = next(steps)
        while True:
            requests = steps.send(gateway.complete_many(requests))
    except StopIteration as done:
        return done.value
