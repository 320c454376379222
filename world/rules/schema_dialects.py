"""One action contract, rendered in each dialect of JSON schema an endpoint enforces. Pure.

- BRANCHES ("anyof"): world.rules.action_schema's root `anyOf` of one six-key object per action,
  each with `action_type` as a constant. What grammar engines take and enforce whole: llama.cpp
  (llama-server, llama-cpp-python, Ollama), xgrammar / llguidance / outlines (vLLM, SGLang), LM Studio.
- OPENAI_STRICT ("openai_strict"): the six-key object itself, every key required and nullable where
  the contract lets it be null, each value an enum of what some allowed action can take here. It
  keeps every rule of OpenAI's strict mode (voyage.gateway.strict_rules checks them, in the suite): the root is an
  object, every object has `additionalProperties: false` and every property required, only documented
  keywords (a constant is a one-value enum), no `anyOf` of objects at all (so none sharing a first
  key), and the enum and size limits (past them a target is any string, judged by the engine).

Why the six-key object for OpenAI, and not per-action objects under a root key: OpenAI refuses
objects in one `anyOf` that begin with the same key, so per-action branches would need a wrapper
key and a different first key per action, and the model would answer in a shape the prompt, its
example and the rules text do not show (they name the six keys, for every provider alike, and they
stay byte for byte what they are). A strict decoder holds the model to the keys, their types, the
names it may aim at, the volumes and the durations; what the flat form cannot say the parser
judges by what the action uses: a volume or words on a move are set aside (world.rules.actions.
IGNORED), a whisper to the room or a sleeper naming someone is refused with a reason, as it always
has been: the engine still judges every action. Both dialects answer in the six keys, so one
parser (world.rules.actions.parse_action) reads both: nothing to map back.
"""
from __future__ import annotations

from world.rules.action_schema import action_branches, action_schema
from world.rules.actions import DURATIONS, KEYS, MAX_TEXT
from world.rules.perception import Situation

BRANCHES, OPENAI_STRICT = "anyof", "openai_strict"
DIALECTS = (BRANCHES, OPENAI_STRICT)

SAID_PATTERN = rf'^[^"\\\x00-\x1f\x7f]{{0,{MAX_TEXT}}}$'  # as action_schema's "said", inlined: no $ref
# OpenAI's documented limits on one schema: enum values in all, and characters of names and values.
MAX_ENUM_VALUES = 1000
MAX_STRING_CHARS = 120_000
NULL = {"type": "null"}


def schema_in(dialect: str, situation: Situation, allowed_actions: tuple[str, ...], rooms: tuple[str, ...] = ()) -> dict:
    """The JSON schema of one action answer, in `dialect`."""
    if dialect == BRANCHES:
        return action_schema(situation, allowed_actions, rooms)
    if dialect == OPENAI_STRICT:
        return openai_strict_schema(situation, allowed_actions, rooms)
    raise ValueError(f"unknown schema dialect {dialect!r}; known: {', '.join(DIALECTS)}")


def openai_strict_schema(situation: Situation, allowed_actions: tuple[str, ...], rooms: tuple[str, ...] = ()) -> dict:
    """The six-key object: each key's values are the union, over the allowed actions' branches, of
    what that branch lets it hold. No legal action of the branches' schema is refused by it."""
    branches = [b["properties"] for a in allowed_actions for b in action_branches(a, situation, rooms)]
    kinds = _unique(b["action_type"]["const"] for b in branches)
    targets = _unique(n for b in branches for n in b["target_character"].get("enum", ()))
    volumes = _unique(v for b in branches for v in b["volume"].get("enum", ()))
    nullable_target = any(b["target_character"] == NULL for b in branches)
    properties = {
        "action_type": {"type": "string", "enum": kinds},
        "target_character": _nullable(_names(targets, len(kinds) + len(volumes) + len(DURATIONS)), nullable_target),
        "volume": _nullable({"type": "string", "enum": volumes} if volumes else None,
                            any(b["volume"] == NULL for b in branches)),
        "dialogue": {"type": "string", "pattern": SAID_PATTERN},
        "duration_minutes": {"type": "integer", "enum": list(DURATIONS)},
        "internal_monologue": {"type": "string", "pattern": SAID_PATTERN},
    }
    return {"type": "object", "properties": {k: properties[k] for k in KEYS}, "required": list(KEYS),
            "additionalProperties": False}


def _names(targets: list[str], other_values: int) -> dict | None:
    """An enum of the names, or any string where the enum would pass OpenAI's limits (a grown world's
    crowded hall): then the engine alone judges the name."""
    if not targets:
        return None
    if len(targets) + other_values > MAX_ENUM_VALUES or sum(map(len, targets)) > MAX_STRING_CHARS // 2:
        return {"type": "string"}
    return {"type": "string", "enum": targets}


def _nullable(schema: dict | None, null: bool) -> dict:
    if schema is None:
        return NULL
    return {"anyOf": [schema, NULL]} if null else schema


def _unique(values) -> list:
    out = []
    for v in values:
        if v not in out:
            out.append(v)
    return out
