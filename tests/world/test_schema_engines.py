"""The action schemas Voyage emits, in both dialects, compiled by the grammar engines servers use
(llguidance, outlines-core; tests/grammar_engines.py) over many situations: every rung of each
shipped ladder, people and items here or not, a grown world's crowded hall. Each compiles, takes
the answers the contract takes (branch by branch, the turn's example, text at its bounds) and
refuses answers it must refuse, and jsonschema agrees with both engines on every one. The
openai_strict schemas keep every documented OpenAI strict rule (voyage.gateway.strict_rules)."""
import json

import jsonschema
import pytest

from tests.grammar_engines import Llguidance, Outlines
from tests.schema_cases import as_json, branch_only_invalid, cases, invalid_answers, valid_answers
from voyage.gateway.strict_rules import broken_rules
from world.rules.actions import Action, parse_action
from world.rules.schema_dialects import BRANCHES, OPENAI_STRICT, schema_in

CASES = list(cases())
IDS = [label for label, *_ in CASES]


def test_the_cases_cover_every_rung_presence_and_the_grown_world():
    labels = set(IDS)
    assert {"1912/rung0/0p0i", "1912/rung2/60p4i", "edelweiss/rung0/3p2i", "1912x400/rung2/60p4i"} <= labels
    crowd = next(s for label, s, *_ in CASES if label == "1912x400/rung1/60p4i")
    assert len(crowd.people) == 60 and any("(2)" in name for name, _, _ in crowd.people)  # grown names


@pytest.mark.parametrize("dialect", [BRANCHES, OPENAI_STRICT])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_each_engine_compiles_the_schema_and_agrees_with_jsonschema(case, dialect):
    _, seen, allowed, rooms = case
    schema = schema_in(dialect, seen, allowed, rooms)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    guidance, outlines = Llguidance(schema), Outlines(schema)
    assert guidance.error == "", guidance.error
    for taken in valid_answers(seen, allowed, rooms):
        assert validator.is_valid(taken), taken
        assert isinstance(parse_action(as_json(taken)), Action), taken  # and the contract takes it
        for spaced in (True, False):
            text = as_json(taken, spaced)
            assert guidance.accepts(text), (dialect, text)
            assert outlines.accepts(text), (dialect, text)
    refused = invalid_answers(seen, allowed, rooms) + (branch_only_invalid(seen, allowed, rooms)
                                                       if dialect == BRANCHES else [])
    for why, wrong in refused:
        assert not validator.is_valid(wrong), why
        assert not guidance.accepts(as_json(wrong)), (dialect, why)
        assert not outlines.accepts(as_json(wrong)), (dialect, why)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_openai_strict_schemas_keep_every_documented_rule_and_branch_schemas_do_not(case):
    _, seen, allowed, rooms = case
    assert broken_rules(schema_in(OPENAI_STRICT, seen, allowed, rooms)) == []
    assert {"root", "keywords", "first_keys"} <= {rule for rule, _ in broken_rules(schema_in(BRANCHES, seen, allowed, rooms))}


@pytest.mark.parametrize("case", CASES[::5], ids=IDS[::5])
def test_the_flat_form_takes_what_the_branches_take_and_the_parser_judges_the_rest(case):
    """No legal action is refused by OpenAI's form; what only the branches refuse, the parser refuses
    with a reason (an ACTION_FAIL) or, for a volume on a move, sets aside as the action does not use
    it, so the engine's verdict is the same in both dialects."""
    _, seen, allowed, rooms = case
    flat = jsonschema.Draft202012Validator(schema_in(OPENAI_STRICT, seen, allowed, rooms))
    for taken in valid_answers(seen, allowed, rooms):
        assert flat.is_valid(taken), taken
    for why, wrong in branch_only_invalid(seen, allowed, rooms):
        assert flat.is_valid(wrong), why
        parsed = parse_action(as_json(wrong))
        if why == "a volume on a move":
            assert isinstance(parsed, Action) and parsed.ignored == ("volume",), why
        else:
            assert not isinstance(parsed, Action), why


def test_the_engines_can_refuse_a_schema():
    """The compile check can fail: llguidance names what it cannot take (a lookahead in a pattern)."""
    bad = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(?=x)x$"}}, "required": ["a"]}
    assert Llguidance(bad).error != ""
