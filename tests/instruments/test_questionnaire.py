"""Questionnaires (issue 32, surveys): the YAML form read and checked with messages naming the line,
the item and the key; each item kind's answer schema (OpenAI-strict, grammar-enforceable) accepts its
valid answers and refuses others; the parser records a broken answer as missing, with its reason. Pure."""
from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voyage.instruments.questionnaire import QuestionnaireError, from_dict, read_questionnaire
from voyage.instruments.survey_answers import answer_schema, check_item, item_schema, parse_answer

EXAMPLE = """\
title: Life in the house
items:
  - {id: safe, text: How safe do you feel here?, kind: scale, scale: {min: 1, max: 7, min_label: not at all, max_label: completely}}
  - {id: leader, text: Who speaks for the group?, kind: choice, options: [nobody, the nurse, the doctor]}
  - {id: worries, text: What worries you?, kind: choices, options: [the weather, money, the others]}
  - {id: days, text: How many days have you been here?, kind: number, range: {min: 0, max: 365}}
  - {id: wish, text: What do you wish for?, kind: text}
"""
Q = read_questionnaire(EXAMPLE)
ITEMS = {i.id: i for i in Q.items}


def test_the_issues_example_reads_as_written():
    assert Q.title == "Life in the house" and ITEMS["safe"].text == "How safe do you feel here?"
    assert [(i.id, i.kind) for i in Q.items] == [("safe", "scale"), ("leader", "choice"), ("worries", "choices"),
                                                 ("days", "number"), ("wish", "text")]
    assert (ITEMS["safe"].low, ITEMS["safe"].high, ITEMS["safe"].low_label) == (1, 7, "not at all")
    assert ITEMS["leader"].options == ("nobody", "the nurse", "the doctor")
    assert (ITEMS["days"].low, ITEMS["days"].high) == (0, 365)
    assert from_dict(Q.as_dict()) == Q == read_questionnaire(Q.as_yaml())  # stored and read back unchanged


@pytest.mark.parametrize("text, says", [
    ("", "empty"),
    ("title: [unclosed", "line 1: not valid YAML"),
    ("- a\n- b\n", "mapping with a title and items"),
    ("items:\n  - {id: a, text: A?, kind: text}\n", "title: required"),
    ("title: T\n", "items: required"),
    ("title: T\nitems: []\n", "items: required"),
    ("title: T\ncolour: red\nitems:\n  - {id: a, text: A?, kind: text}\n", "line 2: colour: unknown key"),
    ("title: T\nitems:\n  - {id: a, text: A?, kind: text}\n  - {id: b, text: B?, kind: rating}\n",
     "line 4: items[1] (b).kind: must be one of scale, choice, choices, number, text; got 'rating'"),
    ("title: T\nitems:\n  - {id: a, text: A?, kind: text}\n  - {id: a, text: B?, kind: text}\n",
     "line 4: items[1] (a).id: 'a' is the id of an earlier item"),
    ("title: T\nitems:\n  - {id: Bad Id, text: A?, kind: text}\n", "line 3: items[0] (Bad Id).id: required: lower-case"),
    ("title: T\nitems:\n  - {id: a, kind: text}\n", "items[0] (a).text: required"),
    ("title: T\nitems:\n  - id: s\n    text: S?\n    kind: scale\n    scale: {min: 1, max: 1}\n",
     "line 6: items[0] (s).scale: min 1 to max 1"),
    ("title: T\nitems:\n  - id: s\n    text: S?\n    kind: scale\n    scale: {min: 1.5, max: 5}\n",
     "items[0] (s).scale.min: required: a whole number"),
    ("title: T\nitems:\n  - {id: s, text: S?, kind: scale}\n", "items[0] (s).scale: required for a scale"),
    ("title: T\nitems:\n  - {id: c, text: C?, kind: choice, options: [one]}\n", "items[0] (c).options: required"),
    ("title: T\nitems:\n  - {id: c, text: C?, kind: choices, options: [one, one]}\n",
     "items[0] (c).options[1]: 'one' is given twice"),
    ("title: T\nitems:\n  - {id: c, text: C?, kind: choice, options: [one, 2]}\n",
     "items[0] (c).options[1]: an option is text"),
    ("title: T\nitems:\n  - {id: n, text: N?, kind: number, range: {min: 5, max: 1}}\n",
     "items[0] (n).range: min 5 must be below max 1"),
    ("title: T\nitems:\n  - {id: n, text: N?, kind: number, range: {min: 0}}\n", "items[0] (n).range.max: required"),
    ("title: T\nitems:\n  - {id: t, text: T?, kind: text, options: [a, b]}\n", "items[0] (t).options: a text item takes no options"),
    ("title: T\nitems:\n  - {id: t, text: T?, kind: text, hint: x}\n", "items[0] (t).hint: unknown key"),
])
def test_a_broken_questionnaire_is_refused_naming_line_item_and_key(text, says):
    with pytest.raises(QuestionnaireError) as caught:
        read_questionnaire(text)
    assert says in str(caught.value)


def test_every_problem_is_listed_at_once():
    with pytest.raises(QuestionnaireError) as caught:
        read_questionnaire("title: T\nitems:\n  - {id: a, text: A?, kind: nope}\n  - {id: b, kind: text}\n")
    assert len(caught.value.problems) == 2


VALID = {
    "safe": [1, 4, 7],
    "leader": ["nobody", "the doctor"],
    "worries": [[], ["money"], ["the weather", "the others"]],
    "days": [0, 3.5, 365],
    "wish": ["To go home.", "x"],
}
INVALID = {
    "safe": [0, 8, 3.5, "4", None, True, [4]],
    "leader": ["the captain", "", 1, ["nobody"], None],
    "worries": ["money", ["money", "rats"], [1], None],
    "days": [-1, 366, "3", None, [3]],
    "wish": [3, None, ["a"], {"a": 1}],
}


@pytest.mark.parametrize("item_id", list(VALID))
def test_each_kinds_schema_accepts_its_answers_and_refuses_others(item_id):
    schema = item_schema(ITEMS[item_id])
    for good in VALID[item_id]:
        jsonschema.validate(good, schema)
    for bad in INVALID[item_id]:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def _keywords(schema) -> set[str]:
    found = set()
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties":
                for sub in value.values():
                    found |= _keywords(sub)
                found.add(key)
                continue
            found.add(key)
            found |= _keywords(value) if isinstance(value, dict) else set()
    return found


def test_the_whole_schema_keeps_openais_strict_rules():
    schema = answer_schema(Q)
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert schema["required"] == list(schema["properties"]) == [i.id for i in Q.items]
    documented = {"type", "properties", "required", "additionalProperties", "enum", "items", "minimum", "maximum",
                  "description"}
    assert _keywords(schema) <= documented
    whole = {"safe": 5, "leader": "nobody", "worries": ["money"], "days": 2, "wish": "Home."}
    jsonschema.validate(whole, schema)
    for broken in ({**whole, "extra": 1}, {k: v for k, v in whole.items() if k != "wish"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema)


def test_the_parser_holds_each_answer_to_its_kind_and_never_guesses():
    good = {"safe": 6, "leader": "the nurse", "worries": ["the others", "money"], "days": 12, "wish": " Rest. "}
    parsed = parse_answer(Q, "Here you are: " + json.dumps(good) + " — done")
    assert parsed.missing == {}
    assert parsed.values == {"safe": 6, "leader": "the nurse", "worries": ["money", "the others"], "days": 12,
                             "wish": "Rest."}
    broken = {"safe": 9, "leader": "The Nurse", "worries": ["money", "money"], "days": "twelve"}
    parsed = parse_answer(Q, json.dumps(broken))
    assert parsed.values == {}
    assert parsed.missing == {"safe": "9 is off the scale 1-7", "leader": 'not one of the options: "The Nurse"',
                              "worries": "an option is chosen twice", "days": 'not a number: "twelve"',
                              "wish": "not answered (no such key)"}
    assert parse_answer(Q, json.dumps({**good, "safe": 3.0})).values["safe"] == 3  # a whole number written as 3.0
    # Python's JSON reader takes NaN and Infinity: neither is a point on a scale or a number in range.
    odd = parse_answer(Q, '{"safe": NaN, "days": Infinity, "leader": "nobody", "worries": [], "wish": "x"}')
    assert odd.missing == {"safe": "not a whole number on the scale: NaN", "days": "not a number: Infinity"}
    assert odd.values == {"leader": "nobody", "worries": [], "wish": "x"}


def test_no_json_or_no_answer_leaves_every_item_missing_with_the_reason():
    assert set(parse_answer(Q, "I would rather not say.").missing.values()) == {"the answer holds no JSON object"}
    assert set(parse_answer(Q, None, "timeout").missing.values()) == {"no answer from the model: timeout"}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.floats(-1000, 1000, allow_nan=False)
    | st.sampled_from(["nobody", "the nurse", "the doctor", "money", "the weather", "the others", "", " x "]),
    lambda inner: st.lists(inner, max_size=4), max_leaves=6)


@settings(max_examples=400, deadline=None)
@given(item_id=st.sampled_from(list(VALID)), value=json_values)
def test_the_parser_and_the_schema_agree(item_id, value):
    """What the parser keeps, the schema accepts; what the schema accepts, the parser keeps, but for
    the few rules a schema engine cannot hold (an option chosen twice, blank text)."""
    item, schema = ITEMS[item_id], item_schema(ITEMS[item_id])
    kept, why = check_item(item, value)
    if not why:
        jsonschema.validate(kept, schema)
        return
    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError:
        return
    assert (item.kind == "choices" and len(set(value)) < len(value)) or (item.kind == "text" and not value.strip()), \
        (value, why)
