"""The checker of OpenAI's documented strict-mode rules (voyage.gateway.strict_rules): one test per
rule, each on a schema that keeps every rule (nothing found) and the same schema broken in that
one way (that rule, and only it, found)."""
import copy

import pytest

from voyage.gateway.strict_rules import (CLOSED, FIRST_KEYS, KEYWORDS, LIMITS, REF_ALONE, REQUIRED, ROOT, RULES,
                                         broken_rules)

GOOD = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": ["a", "b"]},
        "where": {"anyOf": [{"type": "string", "enum": ["deck"]}, {"type": "null"}]},
        "said": {"type": "string", "pattern": "^[a-z]{0,9}$"},
        "nested": {"anyOf": [
            {"type": "object", "properties": {"x": {"type": "integer", "minimum": 1}}, "required": ["x"],
             "additionalProperties": False},
            {"type": "object", "properties": {"y": {"$ref": "#/$defs/word"}}, "required": ["y"],
             "additionalProperties": False}]},
    },
    "required": ["kind", "where", "said", "nested"],
    "additionalProperties": False,
    "$defs": {"word": {"type": "string"}},
}


def rules_broken(schema) -> set[str]:
    return {rule for rule, _ in broken_rules(schema)}


def broken(change) -> dict:
    schema = copy.deepcopy(GOOD)
    change(schema)
    return schema


def test_a_schema_keeping_every_rule_breaks_none():
    assert broken_rules(GOOD) == []


def test_root_must_be_an_object_not_anyof():
    assert rules_broken({"anyOf": [GOOD, GOOD]}) >= {ROOT}
    assert rules_broken(broken(lambda s: s.update(type="array"))) == {ROOT}


def test_every_object_closes_its_properties():
    assert rules_broken(broken(lambda s: s["properties"]["nested"]["anyOf"][0].pop("additionalProperties"))) == {CLOSED}
    assert rules_broken(broken(lambda s: s.update(additionalProperties=True))) == {CLOSED}


def test_every_property_is_required():
    assert rules_broken(broken(lambda s: s["required"].remove("said"))) == {REQUIRED}


def test_only_documented_keywords_const_is_a_one_value_enum():
    assert rules_broken(broken(lambda s: s["properties"].update(kind={"type": "string", "const": "a"}))) == {KEYWORDS}
    assert rules_broken(broken(lambda s: s["properties"]["said"].update(maxLength=9))) == {KEYWORDS}
    assert rules_broken(broken(lambda s: s["properties"].update(kind={"type": "string", "enum": ["a"]}))) == set()


def test_a_ref_stands_alone():
    assert rules_broken(broken(lambda s: s["properties"]["nested"]["anyOf"][1]["properties"]["y"].update(
        description="a word"))) == {REF_ALONE}


def test_objects_in_one_anyof_do_not_share_their_first_key():
    def same_first_key(s):
        s["properties"]["nested"]["anyOf"][1]["properties"] = {"x": {"type": "string"}}
        s["properties"]["nested"]["anyOf"][1]["required"] = ["x"]
    found = broken_rules(broken(same_first_key))
    assert {rule for rule, _ in found} == {FIRST_KEYS}
    assert "must not share identical first keys" in found[0][1]


def test_enum_and_size_limits():
    assert rules_broken(broken(lambda s: s["properties"].update(kind={"type": "string",
                                                                      "enum": [f"k{i}" for i in range(1001)]}))) == {LIMITS}
    assert rules_broken(broken(lambda s: s["properties"].update(kind={"type": "string",
                                                                      "enum": ["x" * 60_001, "y" * 60_001]}))) == {LIMITS}

    def deep(s):
        node = s
        for i in range(11):
            child = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
            node["properties"][f"d{i}"] = child
            node["required"].append(f"d{i}")
            node = child
    assert rules_broken(broken(deep)) == {LIMITS}
    many = {f"p{i}": {"type": "integer"} for i in range(5001)}
    assert rules_broken({"type": "object", "properties": many, "required": list(many),
                         "additionalProperties": False}) == {LIMITS}


def test_every_rule_has_its_test():
    assert set(RULES) == {ROOT, CLOSED, REQUIRED, KEYWORDS, REF_ALONE, FIRST_KEYS, LIMITS}
