"""Local chat-completions servers that apply each provider's documented structured-output rules
(docs/providers.md; /work STACK section 9), built on voyage/bench/fake_openai_server.py:

- openai: json_schema must keep every strict rule (voyage.gateway.strict_rules; refused with 400
  "Invalid schema for response_format 'voyage_action': ..." naming the first rule broken), and is then
  enforced; json_object is refused unless a message contains the word "json";
- openrouter: as openai, but without provider.require_parameters the request may reach a provider
  that drops response_format: the schema is ignored;
- vllm / sglang: only {"type": "json_schema"} constrains, compiled and enforced with llguidance (a
  schema that does not compile: 400); a schema inside json_object is ignored (vLLM logs it as an
  ignored field);
- ollama: json_schema goes through llama.cpp's converter ("invalid JSON schema in format" when it
  cannot), json_object is plain JSON;
- llama-server: json_schema and json_object + schema, through llama.cpp's converter;
- llama-cpp-python: json_schema refused (HTTP 500, pydantic literal_error), json_object + schema enforced;
- lm-studio: json_object refused ("'response_format.type' must be 'json_schema' or 'text'"), json_schema enforced;
- gemini: json_schema enforced (its subset has no const or pattern: those are dropped first), a
  schema beside json_object ignored;
- anthropic: response_format ignored entirely;
- other: whatever schema comes, enforced.

"Enforced" means the answer keeps the schema: the usual answer read off the prompt when it does,
else one written from the schema. "Ignored" means the answer is what the prompt asks for, schema or
not: the endpoint check's message asks for {"probe": "free"}, outside every action schema. Each
record says whether the schema sent was enforced (`enforced`) and what was refused (`refused`).
"""
from __future__ import annotations

import copy
import json
import random
import re

import jsonschema

from voyage.bench.fake_openai_server import REFUSAL, FakeOpenAI, form_of, messages_digest, simple_action
from voyage.gateway.strict_rules import broken_rules

PROVIDERS = ("openai", "openrouter", "vllm", "sglang", "ollama", "llama-server", "llama-cpp-python", "lm-studio",
             "gemini", "anthropic", "other")
ASKED_FOR = re.compile(r"Answer with the JSON object (\{.*?\}) and nothing else")

# Each provider's words when it refuses (status, message); tests/gateway/test_provider_refusals.py sends each.
WORDS = {
    "openai_json": (400, "'messages' must contain the word 'json' in some form, to use 'response_format' of type "
                         "'json_object'."),
    "openai_schema": (400, "Invalid schema for response_format 'voyage_action': {why}"),
    "vllm": (400, "The provided JSON schema contains features not supported by xgrammar. {why}"),
    "ollama": (500, "invalid JSON schema in format"),
    "llama-server": (400, "JSON schema conversion failed: {why}"),
    "llama-cpp-python": (500, REFUSAL),
    "lm-studio": (400, "'response_format.type' must be 'json_schema' or 'text'"),
}


class ProviderServer(FakeOpenAI):
    def __init__(self, provider: str, **kwargs):
        if provider not in PROVIDERS:
            raise ValueError(f"no fixture for provider {provider!r}")
        super().__init__(**kwargs)
        self.provider = provider

    # --- the provider's rules -------------------------------------------------------------
    def judge(self, body: dict) -> tuple[str, object]:
        """("refuse", (status, message)), ("enforce", schema) or ("free", None)."""
        form, sent = form_of(body), body.get("response_format") or {}
        schema = (sent.get("json_schema") or {}).get("schema") if form == "json_schema" else sent.get("schema")
        p = self.provider
        if p == "anthropic" or form == "none":
            return "free", None
        if p in ("openai", "openrouter"):
            routed = (body.get("provider") or {}).get("require_parameters") is True
            if p == "openrouter" and not routed:
                return "free", None  # a provider that drops response_format may serve it
            if form == "json_object" and not any("json" in str(m.get("content", "")).lower() for m in body["messages"]):
                return "refuse", WORDS["openai_json"]
            if form == "json_schema":
                broken = broken_rules(schema)
                if broken:
                    status, words = WORDS["openai_schema"]
                    return "refuse", (status, words.format(why=broken[0][1]))
                return "enforce", schema
            return "free", None  # json_object (a schema beside it is no part of OpenAI's form)
        if p in ("vllm", "sglang"):
            if form != "json_schema":
                return "free", None  # a schema inside json_object: logged as ignored, never applied
            from tests.grammar_engines import Llguidance

            error = Llguidance(schema).error
            if error:
                status, words = WORDS["vllm"]
                return "refuse", (status, words.format(why=error[:200]))
            return "enforce", schema
        if p == "lm-studio":
            return ("refuse", WORDS["lm-studio"]) if form != "json_schema" else ("enforce", schema)
        if p == "llama-cpp-python":
            if form == "json_schema":
                return "refuse", WORDS["llama-cpp-python"]
            return ("enforce", schema) if schema else ("free", None)
        if p in ("ollama", "llama-server"):
            if p == "ollama" and form == "json_object_schema":
                return "free", None  # its OpenAI endpoint turns json_object into "json"
            if not schema:
                return "free", None
            try:
                from llama_cpp.llama_grammar import json_schema_to_gbnf

                json_schema_to_gbnf(json.dumps(schema))
            except Exception as exc:
                status, words = WORDS[p]
                return "refuse", (status, words.format(why=str(exc)[:200]))
            return "enforce", schema
        if p == "gemini":
            if form != "json_schema":
                return "free", None
            return "enforce", without(schema, ("const", "pattern"))
        return ("enforce", schema) if schema else ("free", None)

    # --- answering ------------------------------------------------------------------------
    def _answer(self, h, body: dict, fault: str | None) -> None:
        verdict, detail = self.judge(body)
        self._note(body, enforced=verdict == "enforce", refused=detail[1] if verdict == "refuse" else "")
        if verdict == "refuse":
            status, message = detail
            return h._send(status, {"error": {"message": message, "type": "invalid_request_error"}})
        body["_enforce"] = detail if verdict == "enforce" else None
        return super()._answer(h, body, fault)

    def _content(self, body: dict, fault: str | None) -> str:
        schema = body.pop("_enforce", None)
        asked = [ASKED_FOR.search(str(m.get("content", ""))) for m in body.get("messages", [])]
        asked = next((a.group(1) for a in asked if a), None)
        free = asked or super()._content(body, fault)
        if schema is None:
            return free
        try:
            if jsonschema.Draft202012Validator(schema).is_valid(json.loads(free)):
                return free
        except ValueError:
            pass
        action = simple_action(body.get("messages", []))
        if jsonschema.Draft202012Validator(schema).is_valid(action):
            return json.dumps(action)
        return json.dumps(instance_of(schema, schema))

    def _note(self, body: dict, **facts) -> None:
        with self.lock:
            for record in reversed(self.records):
                if record["body"] is body:
                    record.update(facts)
                    return


def without(schema, keywords) -> dict:
    """The schema with `keywords` dropped everywhere (what a provider with a smaller subset applies)."""
    if isinstance(schema, dict):
        return {k: without(v, keywords) for k, v in schema.items() if k not in keywords}
    if isinstance(schema, list):
        return [without(v, keywords) for v in schema]
    return copy.deepcopy(schema)


def instance_of(node: dict, root: dict):
    """The first answer a schema allows: first branch, first enum value, a short sentence for a string."""
    if "$ref" in node:
        return instance_of(root["$defs"][node["$ref"].rsplit("/", 1)[1]], root)
    if "anyOf" in node:
        return instance_of(node["anyOf"][0], root)
    if "const" in node:
        return node["const"]
    if "enum" in node:
        return node["enum"][0]
    kind = node.get("type")
    if kind == "object":
        return {k: instance_of(v, root) for k, v in node.get("properties", {}).items()}
    if kind == "null":
        return None
    if kind == "integer":
        return node.get("minimum", 1)
    return "Hm."


# --- models that keep a schema but not the contract's ties -----------------------------------------
class RandomSchemaServer(ProviderServer):
    """The provider's rules, and every action call answered with a random instance of the schema it
    was sent (seeded by the prompt): under OpenAI's strict flat object, a model that fills every key
    with something the schema allows — a volume on a move, a target on a sleep."""

    def _content(self, body: dict, fault: str | None) -> str:
        schema = body.get("_enforce")
        if schema is None:
            return super()._content(body, fault)
        body.pop("_enforce")
        return json.dumps(random_instance(schema, schema, random.Random(messages_digest(body["messages"]))))


SAYINGS = ("", "Hm.", "Who goes there?", "I remember nothing at all.")


def random_instance(node: dict, root: dict, rng: random.Random):
    """Any answer a schema allows, drawn with `rng`: a random branch, enum value and type; a string is
    one of SAYINGS (each keeps the one-line pattern)."""
    if "$ref" in node:
        return random_instance(root["$defs"][node["$ref"].rsplit("/", 1)[1]], root, rng)
    if "anyOf" in node:
        return random_instance(rng.choice(node["anyOf"]), root, rng)
    if "const" in node:
        return node["const"]
    if "enum" in node:
        return rng.choice(node["enum"])
    kind = node.get("type")
    kind = rng.choice(kind) if isinstance(kind, list) else kind
    if kind == "object":
        return {k: random_instance(v, root, rng) for k, v in node.get("properties", {}).items()}
    if kind == "null":
        return None
    if kind == "integer":
        return node.get("minimum", 1)
    return rng.choice(SAYINGS)


WAYS_OUT = re.compile(r"^Ways out: (.+)\.$", re.M)
THINGS = re.compile(r"^(?:Items here|\d+ indistinct objects): (.+)\.$", re.M)


class StrayFieldsServer(ProviderServer):
    """An endpoint that ignores response_format (Anthropic's OpenAI-compatible one), whose every action
    answer is a valid action read off the prompt with a volume and `words` filled in besides: a sleep
    by default, or in turn (by the prompt) any of `kinds` — sleep, an item examined, a walk out."""

    def __init__(self, kinds=("sleep",), words: str = "", volume: str = "normal", **kwargs):
        super().__init__("anthropic", **kwargs)
        self.kinds, self.words, self.volume = tuple(kinds), words, volume

    def _content(self, body: dict, fault: str | None) -> str:
        messages = body.get("messages", [])
        if not any("exactly these six keys" in str(m.get("content", "")) for m in messages):
            return super()._content(body, fault)
        situation = messages[-1]["content"]
        roll = int(messages_digest(messages)[:8], 16)
        kind, target = self.kinds[roll % len(self.kinds)], None
        things, ways = THINGS.search(situation), WAYS_OUT.search(situation)
        if kind == "interact" and things:
            target = things.group(1).split(", ")[roll % len(things.group(1).split(", "))]
        elif kind == "move" and ways:
            target = ways.group(1).split(", ")[roll % len(ways.group(1).split(", "))]
        else:
            kind = "sleep"
        return json.dumps({"action_type": kind, "target_character": target, "volume": self.volume,
                           "dialogue": self.words, "duration_minutes": 3, "internal_monologue": "Quietly now."})
