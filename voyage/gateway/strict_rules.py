"""OpenAI's documented rules for a strict `json_schema` (the structured-outputs guide, "Supported
schemas"), as a checker: `broken_rules(schema)` lists every rule a schema breaks, in OpenAI's terms.
Pure. Written from the documentation (docs/providers.md names each rule), not from a server: the
suite checks every schema Voyage emits in the openai_strict dialect with it, and the OpenAI fixture
server (tests/provider_servers.py) refuses a schema with its findings, as OpenAI's API does.

The rules:
- ROOT: the root is an object (`type: object`), not an `anyOf`;
- CLOSED: every object has `additionalProperties: false`;
- REQUIRED: every property of an object is in its `required`;
- KEYWORDS: only documented keywords (no `const`: a constant is a one-value enum; no
  `minLength`/`maxLength`, `oneOf`, `allOf`, `not`, `if`...);
- REF_ALONE: a `$ref` has no keyword beside it;
- FIRST_KEYS: no two objects in one `anyOf` begin with the same key (the API's words: "Objects
  provided via 'anyOf' must not share identical first keys");
- LIMITS: at most 5,000 properties, 10 levels of nesting, 1,000 enum values in all, and 120,000
  characters of property names, enum values and const-like strings in all.
"""
from __future__ import annotations

ROOT, CLOSED, REQUIRED, KEYWORDS, REF_ALONE, FIRST_KEYS, LIMITS = (
    "root", "closed", "required", "keywords", "ref_alone", "first_keys", "limits")
RULES = (ROOT, CLOSED, REQUIRED, KEYWORDS, REF_ALONE, FIRST_KEYS, LIMITS)

DOCUMENTED = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "enum", "anyOf", "$defs", "definitions",
    "$ref", "description", "title",
    "pattern", "format",  # strings
    "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",  # numbers
    "minItems", "maxItems",  # arrays
})
MAX_PROPERTIES, MAX_DEPTH, MAX_ENUM_VALUES, MAX_CHARS = 5000, 10, 1000, 120_000


def broken_rules(schema: dict) -> list[tuple[str, str]]:
    """(rule, where and why) for every rule `schema` breaks; empty when OpenAI's strict mode takes it."""
    found: list[tuple[str, str]] = []
    if not isinstance(schema, dict) or schema.get("type") != "object" or "anyOf" in schema:
        found.append((ROOT, "the root must be an object (type object), not anyOf"))
    tally = {"properties": 0, "enum": 0, "chars": 0, "depth": 0}
    _walk(schema, "#", 0, found, tally)
    if tally["properties"] > MAX_PROPERTIES:
        found.append((LIMITS, f"{tally['properties']} properties (at most {MAX_PROPERTIES})"))
    if tally["depth"] > MAX_DEPTH:
        found.append((LIMITS, f"{tally['depth']} levels of nesting (at most {MAX_DEPTH})"))
    if tally["enum"] > MAX_ENUM_VALUES:
        found.append((LIMITS, f"{tally['enum']} enum values in all (at most {MAX_ENUM_VALUES})"))
    if tally["chars"] > MAX_CHARS:
        found.append((LIMITS, f"{tally['chars']} characters of names and values (at most {MAX_CHARS})"))
    return found


def _walk(node, where: str, depth: int, found: list, tally: dict) -> None:
    if not isinstance(node, dict):
        return
    unknown = sorted(set(node) - DOCUMENTED)
    if unknown:
        found.append((KEYWORDS, f"{where}: {', '.join(unknown)} not supported"))
    if "$ref" in node and len(node) > 1:
        found.append((REF_ALONE, f"{where}: $ref with {', '.join(sorted(k for k in node if k != '$ref'))} beside it"))
    if node.get("type") == "object" or "properties" in node:
        tally["depth"] = max(tally["depth"], depth + 1)
        _object(node, where, found, tally)
    if isinstance(node.get("enum"), list):
        tally["enum"] += len(node["enum"])
        tally["chars"] += sum(len(v) for v in node["enum"] if isinstance(v, str))
    if isinstance(node.get("anyOf"), list):
        _first_keys(node["anyOf"], where, found)
    for key, child in _children(node):
        _walk(child, f"{where}/{key}", depth + (1 if key.startswith("properties/") else 0), found, tally)


def _object(node: dict, where: str, found: list, tally: dict) -> None:
    properties = node.get("properties") or {}
    tally["properties"] += len(properties)
    tally["chars"] += sum(len(k) for k in properties)
    if node.get("additionalProperties") is not False:
        found.append((CLOSED, f"{where}: additionalProperties must be false"))
    missing = [k for k in properties if k not in (node.get("required") or [])]
    if missing:
        found.append((REQUIRED, f"{where}: {', '.join(missing)} not in required"))


def _first_keys(branches: list, where: str, found: list) -> None:
    seen = {}
    for i, branch in enumerate(branches):
        properties = branch.get("properties") if isinstance(branch, dict) else None
        if not properties:
            continue
        first = next(iter(properties))
        if first in seen:
            found.append((FIRST_KEYS, f"{where}/anyOf: objects {seen[first]} and {i} share the first key {first!r} "
                                      "(Objects provided via 'anyOf' must not share identical first keys)"))
        else:
            seen[first] = i


def _children(node: dict):
    for name, child in (node.get("properties") or {}).items():
        yield f"properties/{name}", child
    for name, child in (node.get("$defs") or node.get("definitions") or {}).items():
        yield f"$defs/{name}", child
    for i, child in enumerate(node.get("anyOf") or []):
        yield f"anyOf/{i}", child
    if isinstance(node.get("items"), dict):
        yield "items", node["items"]
