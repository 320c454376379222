"""The OpenAI-compatible gateway: any chat-completions endpoint (OpenRouter, vLLM, Ollama, llama.cpp
server) through the `openai` SDK's AsyncOpenAI client.

- A call never stops a run, except when the endpoint refuses the profile's structured-output form (a
  4xx, or a 500 whose body says so: structured.refuses_form). That is not retried: it raises
  FormRefused, naming the profile and the form, and the run pauses with it (engine.runner.advance).
  Otherwise timeouts, connection errors, 429 (honouring Retry-After), 5xx, a body
  that is not JSON and an empty answer are retried with exponential backoff and jitter; a call that
  still fails comes back as ModelAnswer(text=None, error=...) and the engine turns it into an
  ACTION_FAIL (actions) or a logged, skipped step (everything else).
- Concurrency: one AsyncOpenAI client lives on a private event loop in a thread of its own;
  `complete_many` runs a batch concurrently (asyncio.gather) under a semaphore of the profile's
  size, `complete` runs one call on the same loop, and `start` puts one call on it and returns at
  once (the simultaneous schedule starts each action call as soon as its prompt is built). The
  caller's thread needs no event loop, and
  one that has its own running (a test, an async view) is not disturbed.
- No ORM here: the profile is copied into a plain GatewayConfig before any call, and the engine
  records each answer itself (TickWriter.call).
- The API key is read from the environment variable the profile names and goes nowhere but the
  Authorization header: not into the config, the answers, the errors or the logs.
- Only `request.messages` is sent, with `request.schema` in the response_format the profile says
  (voyage.gateway.structured). `request.hints` exist for the offline policy alone.
"""
from __future__ import annotations

import asyncio
import copy
import logging
import os
import random
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field

import openai

from voyage.gateway import providers, structured
from voyage.gateway.base import (ACTION, AUTHOR, JUDGE, REASONING_DEFAULTS, SURVEY, TRUST, FormRefused, Gateway,
                                 GatewayConfigError, ModelAnswer, ModelRequest)
from voyage.gateway.json_extract import extract_json_object
from voyage.gateway.retry import backoff_delay, parse_retry_after

log = logging.getLogger("voyage.gateway")

# Purposes whose answer is a JSON object. They get response_format json_object when the endpoint
# has a JSON mode (and the prompt mentions JSON, which OpenAI's API requires), and tolerant
# extraction when it has none. The other purposes answer in prose.
JSON_PURPOSES = frozenset({ACTION, TRUST, SURVEY, JUDGE, AUTHOR})
ASK_FOR_JSON = "Answer with one JSON object only: no code fence, nothing before or after it."


class EmptyAnswer(Exception):
    """The endpoint answered 200 with nothing usable in it: worth another try."""


@dataclass(frozen=True)
class GatewayConfig:
    """A plain copy of a ModelProfile, safe to use off the ORM's thread."""

    base_url: str
    model: str
    api_key_env: str = ""
    profile: str = ""  # the model profile's name, for messages
    structured_output: str = structured.JSON_OBJECT  # how the endpoint takes a JSON answer (structured.py)
    schema_dialect: str = providers.BRANCHES  # which JSON-schema dialect the action schema is written in
    provider: str = providers.OTHER  # who serves it (providers.py): which refusals it words its own way
    extra_body: dict = field(default_factory=dict)  # merged into every request (OpenRouter's provider routing)
    cached_tokens_at: str = providers.USAGE_CACHED  # where an answer reports cached prompt tokens
    reasoning: dict = field(default_factory=dict)
    reasoning_on: dict = field(default_factory=lambda: {"reasoning": {"enabled": True}})
    reasoning_off: dict = field(default_factory=lambda: {"reasoning": {"enabled": False}})
    temperature: float = 0.8
    max_tokens: int = 800
    timeout_s: float = 60.0
    retries: int = 3
    concurrency: int = 16
    price_in_per_m: float = 0.0
    price_out_per_m: float = 0.0

    @classmethod
    def from_profile(cls, profile) -> "GatewayConfig":
        return cls(
            base_url=profile.base_url, model=profile.model, api_key_env=profile.api_key_env, profile=profile.name,
            structured_output=profile.structured_output, schema_dialect=profile.schema_dialect,
            provider=profile.provider, extra_body=dict(profile.extra_body or {}),
            cached_tokens_at=profile.cached_tokens_at, reasoning=dict(profile.reasoning or {}),
            reasoning_on=dict(profile.reasoning_on or {}), reasoning_off=dict(profile.reasoning_off or {}),
            temperature=profile.temperature, max_tokens=profile.max_tokens, timeout_s=profile.timeout_s,
            retries=profile.retries, concurrency=max(1, profile.concurrency),
            price_in_per_m=float(profile.price_in_per_m), price_out_per_m=float(profile.price_out_per_m),
        )

    @property
    def takes_schema(self) -> bool:
        return structured.takes_schema(self.structured_output)

    @property
    def json_mode(self) -> bool:
        return self.structured_output != structured.NONE

    def reasoning_for(self, purpose: str) -> bool:
        return bool(self.reasoning.get(purpose, REASONING_DEFAULTS.get(purpose, False)))

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return round((prompt_tokens * self.price_in_per_m + completion_tokens * self.price_out_per_m) / 1e6, 6)


def read_api_key(env_name: str) -> str:
    """The key from the environment. Endpoints that need none (Ollama, a local vLLM) get a placeholder."""
    if not env_name:
        return "no-key"
    key = os.environ.get(env_name, "")
    if not key:
        raise GatewayConfigError(f"the model profile reads its API key from ${env_name}, which is not set")
    return key


def wants_json(request: ModelRequest) -> bool:
    return request.purpose in JSON_PURPOSES


def request_params(config: GatewayConfig, request: ModelRequest) -> dict:
    """The keyword arguments of chat.completions.create for a request. Pure."""
    messages = [dict(m) for m in request.messages]
    params = {"model": config.model, "messages": messages, "temperature": config.temperature,
              "max_tokens": config.max_tokens}
    if wants_json(request):
        mentions_json = any("json" in str(m.get("content", "")).lower() for m in messages)
        if config.json_mode and mentions_json:
            params["response_format"] = structured.response_format(config.structured_output, request.schema)
        elif not config.json_mode and not mentions_json:
            messages.append({"role": "user", "content": ASK_FOR_JSON})
    extra = config.reasoning_on if config.reasoning_for(request.purpose) else config.reasoning_off
    if extra or config.extra_body:
        params["extra_body"] = copy.deepcopy({**config.extra_body, **extra})
    return params


RETRIABLE = (
    openai.APIConnectionError,      # includes APITimeoutError and dropped connections
    openai.RateLimitError,          # 429
    openai.InternalServerError,     # >= 500
    openai.APIResponseValidationError,
    EmptyAnswer,
    ValueError,                     # a body that is not JSON (json.JSONDecodeError)
)
RETRIABLE_STATUS = {408, 409, 429}


def http_client():
    """aiohttp under the SDK when it is installed (the `openai[aiohttp]` extra): with 33 calls in
    flight it costs less CPU per call than the default httpx2 pool, and a simultaneous tick is
    bounded by that CPU once the endpoint has answered. None: the SDK's default client."""
    try:
        return openai.DefaultAioHttpClient()
    except RuntimeError:
        return None


class OpenAIGateway(Gateway):
    name = "openai"

    def __init__(self, config: GatewayConfig, *, backoff_base_s: float = 0.5, backoff_cap_s: float = 20.0):
        self.config = config
        self.backoff_base_s = backoff_base_s
        self.backoff_cap_s = backoff_cap_s
        self._key = read_api_key(config.api_key_env)
        self._rng = random.Random()  # jitter only: it changes when a call is retried, never an answer
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="voyage-gateway", daemon=True)
        self._thread.start()
        self._client, self._slots = self._run(self._open())

    async def _open(self):
        client = openai.AsyncOpenAI(base_url=self.config.base_url, api_key=self._key, max_retries=0,
                                    timeout=self.config.timeout_s, http_client=http_client())
        return client, asyncio.Semaphore(self.config.concurrency)

    def _run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    # --- the Gateway interface ------------------------------------------------------------
    @property
    def takes_schema(self) -> bool:
        return self.config.takes_schema

    @property
    def schema_dialect(self) -> str:
        return self.config.schema_dialect

    def complete(self, request: ModelRequest) -> ModelAnswer:
        return self._run(self._call(request))

    def complete_many(self, requests: list[ModelRequest]) -> list[ModelAnswer]:
        return self._run(self._gather(requests))

    def start(self, request: ModelRequest) -> Future:
        return asyncio.run_coroutine_threadsafe(self._call(request), self._loop)

    def close(self) -> None:
        """Calls still in flight (a tick cut short: a form refused, a failed commit) are cancelled and
        wound down on the loop before it closes: left pending, each would log "Task was destroyed but
        it is pending!" or "Event loop is closed" as the closed loop is asked to run its callbacks."""
        if self._loop.is_closed():
            return
        try:
            self._run(self._shutdown())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
            self._loop.close()

    async def _shutdown(self) -> None:
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)
        await self._client.close()

    # --- one call, with its retries -------------------------------------------------------
    async def _gather(self, requests):
        return list(await asyncio.gather(*(self._call(r) for r in requests)))

    async def _call(self, request: ModelRequest) -> ModelAnswer:
        params = request_params(self.config, request)
        # The SDK's documented way to send a body as it stands: chat.completions.create() would walk
        # the messages through its typed-dict transform first (about 2 ms a call, CPU-bound: a tenth
        # of a simultaneous tick's floor at 33 agents), to change nothing in them.
        body = {k: v for k, v in params.items() if k != "extra_body"} | params.get("extra_body", {})
        usage = Usage()
        started = None
        attempt = 0
        while True:
            attempt += 1
            retry_after = None
            async with self._slots:
                started = started or time.perf_counter()
                try:
                    # The decoded JSON as it came (cast_to=object): building the SDK's ChatCompletion model
                    # costs more CPU than the rest of the answer's handling, and the few fields read here
                    # are checked as they are read.
                    response = await self._client.post("/chat/completions", cast_to=object, body=body)
                    usage.add(response, self.config.cached_tokens_at)
                    text = self._text(request, response)
                    return usage.answer(self.config, text, attempt, started)
                except asyncio.CancelledError:
                    raise
                except openai.APIStatusError as exc:
                    if "response_format" in body and structured.refuses_form(exc.status_code, exc.response.text):
                        raise self._refusal(body["response_format"], exc) from None
                    error = self._describe(exc)
                    retriable = exc.status_code in RETRIABLE_STATUS or exc.status_code >= 500
                    # 429 says how long to wait; so may a 503
                    retry_after = parse_retry_after(exc.response.headers) if retriable else None
                except RETRIABLE as exc:
                    error, retriable = self._describe(exc), True
                except Exception as exc:  # an SDK or endpoint oddity must not stop the run
                    error, retriable = self._describe(exc), False
            if not retriable or attempt > self.config.retries:
                break
            delay = backoff_delay(attempt, base_s=self.backoff_base_s, cap_s=self.backoff_cap_s, rng=self._rng,
                                  retry_after_s=retry_after)
            log.info("%s call (tick %s, %s) attempt %d failed: %s; retrying in %.2fs", request.purpose,
                     request.tick, request.agent_key or "-", attempt, error, delay)
            await asyncio.sleep(delay)
        error = f"{error} (after {attempt} attempt{'s' if attempt > 1 else ''})"
        log.warning("%s call (tick %s, %s) gave up: %s", request.purpose, request.tick, request.agent_key or "-", error)
        return usage.answer(self.config, None, attempt, started, error)

    def _text(self, request: ModelRequest, response) -> str:
        if not isinstance(response, dict):
            raise EmptyAnswer(f"the endpoint's answer is not a chat completion: {str(response)[:80]!r}")
        choices = response.get("choices")
        if not choices or not isinstance(choices, list):
            raise EmptyAnswer("the endpoint returned no choices")
        first = choices[0] if isinstance(choices[0], dict) else {}
        content = (first.get("message") or {}).get("content")
        if not isinstance(content, str) or not content.strip():
            raise EmptyAnswer(f"the endpoint returned an empty message (finish_reason {first.get('finish_reason')})")
        if wants_json(request) and not self.config.json_mode:
            # The object found is what the call answered (and what is recorded as its raw answer);
            # with none found the whole text goes on, for the action contract to reject with a reason.
            return extract_json_object(content) or content
        return content

    def _refusal(self, sent: dict, exc: openai.APIStatusError) -> FormRefused:
        said = " ".join(exc.response.text.split())[:240]
        detail = self._scrub(f"response_format type {sent.get('type')!r}; HTTP {exc.status_code}: {said}")
        return FormRefused(self.config.profile or self.config.model, self.config.structured_output, detail)

    def _describe(self, exc: Exception) -> str:
        return self._scrub(f"{type(exc).__name__}: {exc}"[:300])

    def _scrub(self, text: str) -> str:
        return text.replace(self._key, "***") if len(self._key) >= 4 else text


class Usage:
    """Tokens over every attempt that got a response back."""

    def __init__(self):
        self.prompt = self.completion = self.reasoning = self.cached = 0
        self.reported_cost = 0.0

    def add(self, response, cached_at: str = providers.USAGE_CACHED) -> None:
        """From a chat completion's `usage` (decoded JSON); what is missing or not a number counts 0.
        Cached tokens are read where the provider reports them (`cached_at`, a dotted path)."""
        u = response.get("usage") if isinstance(response, dict) else None
        if not isinstance(u, dict):
            return
        self.prompt += _tokens(u.get("prompt_tokens"))
        self.completion += _tokens(u.get("completion_tokens"))
        self.reasoning += _tokens(_member(u, "completion_tokens_details", "reasoning_tokens"))
        self.cached += providers.cached_tokens(response, cached_at)
        cost = u.get("cost")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            self.reported_cost += cost  # OpenRouter reports the cost it charged

    def answer(self, config: GatewayConfig, text, attempts: int, started, error: str = "") -> ModelAnswer:
        cost = config.cost(self.prompt, self.completion)
        if not cost and self.reported_cost:  # no prices in the profile: trust the endpoint's figure
            cost = round(self.reported_cost, 6)
        latency = 1000 * (time.perf_counter() - started) if started else 0.0
        return ModelAnswer(text=text, error=error, prompt_tokens=self.prompt, completion_tokens=self.completion,
                           reasoning_tokens=self.reasoning, cached_tokens=self.cached, latency_ms=round(latency, 1),
                           attempts=attempts, cost=cost)


def _tokens(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _member(usage: dict, part: str, key: str):
    details = usage.get(part)
    return details.get(key) if isinstance(details, dict) else None
