"""Providers by name: what each OpenAI-compatible endpoint needs, as a model profile's defaults. Pure.

Choosing a provider fills in a profile's base URL, the structured-output form and schema dialect
that provider enforces, its reasoning switches, where it reports cached tokens and any body it
needs on every request; every field stays editable after. `other` keeps the profile's own defaults
(json_object, the branches' dialect, OpenRouter's reasoning switch): what Voyage did before
providers had names. The facts are read from each provider's documentation and source
(docs/providers.md, with the test that backs each row).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from voyage.gateway import structured

BRANCHES, OPENAI_STRICT = "anyof", "openai_strict"  # world.rules.schema_dialects.DIALECTS
USAGE_CACHED = "usage.prompt_tokens_details.cached_tokens"


@dataclass(frozen=True)
class Provider:
    name: str
    label: str
    base_url: str
    structured_output: str
    schema_dialect: str = BRANCHES
    reasoning_on: dict = field(default_factory=dict)
    reasoning_off: dict = field(default_factory=dict)
    cached_tokens_at: str = USAGE_CACHED  # a dotted path in the chat completion; "" where none is reported
    extra_body: dict = field(default_factory=dict)  # merged into every request
    api_key_env: str = ""

    def profile_fields(self) -> dict:
        """The ModelProfile fields this provider fills in."""
        return {"provider": self.name, "base_url": self.base_url, "structured_output": self.structured_output,
                "schema_dialect": self.schema_dialect, "reasoning_on": dict(self.reasoning_on),
                "reasoning_off": dict(self.reasoning_off), "cached_tokens_at": self.cached_tokens_at,
                "extra_body": dict(self.extra_body), "api_key_env": self.api_key_env}


def _thinking(on: bool) -> dict:
    return {"chat_template_kwargs": {"enable_thinking": on}}


PROVIDERS = {p.name: p for p in (
    Provider("openai", "OpenAI", "https://api.openai.com/v1", structured.JSON_SCHEMA, OPENAI_STRICT,
             reasoning_on={"reasoning_effort": "medium"}, reasoning_off={}, api_key_env="OPENAI_API_KEY"),
    Provider("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", structured.JSON_SCHEMA, OPENAI_STRICT,
             reasoning_on={"reasoning": {"enabled": True}}, reasoning_off={"reasoning": {"enabled": False}},
             extra_body={"provider": {"require_parameters": True}}, api_key_env="OPENROUTER_API_KEY"),
    Provider("vllm", "vLLM", "http://localhost:8000/v1", structured.JSON_SCHEMA, BRANCHES,
             reasoning_on=_thinking(True), reasoning_off=_thinking(False)),
    Provider("sglang", "SGLang", "http://localhost:30000/v1", structured.JSON_SCHEMA, BRANCHES,
             reasoning_on=_thinking(True), reasoning_off=_thinking(False)),
    Provider("ollama", "Ollama", "http://localhost:11434/v1", structured.JSON_SCHEMA, BRANCHES,
             reasoning_on={"think": True}, reasoning_off={"think": False}, cached_tokens_at=""),
    Provider("llama-server", "llama.cpp llama-server", "http://127.0.0.1:8080/v1", structured.JSON_SCHEMA, BRANCHES,
             reasoning_on=_thinking(True), reasoning_off=_thinking(False), cached_tokens_at="timings.cache_n"),
    Provider("llama-cpp-python", "llama-cpp-python server", "http://127.0.0.1:8000/v1",
             structured.JSON_OBJECT_SCHEMA, BRANCHES, cached_tokens_at=""),
    Provider("lm-studio", "LM Studio", "http://localhost:1234/v1", structured.JSON_SCHEMA, BRANCHES,
             cached_tokens_at=""),
    Provider("gemini", "Google Gemini (OpenAI compatibility)", "https://generativelanguage.googleapis.com/v1beta/openai",
             structured.JSON_SCHEMA, OPENAI_STRICT, reasoning_on={"reasoning_effort": "medium"}, reasoning_off={},
             api_key_env="GEMINI_API_KEY"),
    # Its OpenAI-compatible endpoint ignores response_format: the prompt alone asks for JSON.
    Provider("anthropic", "Anthropic (OpenAI SDK compatibility)", "https://api.anthropic.com/v1", structured.NONE,
             BRANCHES, reasoning_on={"thinking": {"type": "enabled", "budget_tokens": 2000}}, reasoning_off={},
             api_key_env="ANTHROPIC_API_KEY"),
    Provider("other", "other OpenAI-compatible endpoint", "", structured.JSON_OBJECT, BRANCHES,
             reasoning_on={"reasoning": {"enabled": True}}, reasoning_off={"reasoning": {"enabled": False}}),
)}
OTHER = "other"
NAMES = tuple(PROVIDERS)
CHOICES = [(p.name, p.label) for p in PROVIDERS.values()]


def provider(name: str) -> Provider:
    try:
        return PROVIDERS[name]
    except KeyError:
        raise ValueError(f"unknown provider {name!r}; known: {', '.join(NAMES)}") from None


def cached_tokens(response, path: str) -> int:
    """The cached prompt tokens a chat completion (decoded JSON) reports at `path`; 0 where it says none."""
    value = response
    for part in path.split(".") if path else ():
        value = value.get(part) if isinstance(value, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
