"""Each stage's schema keeps OpenAI's strict rules and compiles in a grammar engine (llguidance, as
vLLM and SGLang use), and the scripted world's answers keep it: one schema serves both dialects."""
import json

import jsonschema
import pytest
from llguidance import LLMatcher

from voyage.gateway.strict_rules import broken_rules
from world.drafting.limits import DraftAsk
from world.drafting.scripted import scripted_world
from world.drafting.stages import STAGES, stage_of, stage_schema

WORLD = scripted_world(DraftAsk("A small island with a harbour, a chapel and a pub.", people=4, rooms=6))


def schema(stage):
    earlier = {s: stage_of(WORLD, s) for s in STAGES[:STAGES.index(stage)]}
    return stage_schema(stage, earlier)


@pytest.mark.parametrize("stage", STAGES)
def test_a_stage_schema_keeps_openais_strict_rules_and_compiles(stage):
    assert broken_rules(schema(stage)) == []
    grammar = LLMatcher.grammar_from_json_schema(json.dumps(schema(stage)))
    assert LLMatcher.validate_grammar(grammar) == ""


@pytest.mark.parametrize("stage", STAGES)
def test_the_scripted_answer_keeps_its_stage_schema(stage):
    jsonschema.validate(stage_of(WORLD, stage), schema(stage))


def test_later_stages_may_name_only_the_rooms_and_people_before_them():
    props = schema("props")["properties"]["props"]["items"]["properties"]
    assert props["room"]["enum"] == [r["key"] for r in WORLD["rooms"]]
    assert props["owner"]["anyOf"][0]["enum"] == [p["key"] for p in WORLD["personas"]]
