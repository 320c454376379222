"""Pure tests of the per-call action schema (world.rules.action_schema) and of how each profile form
carries it (voyage.gateway.structured)."""
import json

import jsonschema_rs  # comes with schemathesis (a test dependency)
import pytest
from hypothesis import given
from hypothesis import strategies as st

from voyage.gateway import structured
from world.rules.action_schema import action_schema, nameable_targets, rooms_named
from world.rules.actions import KEYS, Action, parse_action
from world.rules.ladder import ITEM_NAMES, OWN_NAME, PEOPLE_NAMES, SETTING, TRUST_LABELS, RungSpec, rung_spec
from world.rules.perception import Person, Place, Thing, perceive, render_situation, resolve_target

SALON, DECK, CABIN, BRIDGE = Place(10, "Grand Salon"), Place(11, "Promenade Deck"), Place(12, "Cabin C-62"), Place(13, "Bridge")
ROOMS = {p.name: p.room_id for p in (SALON, DECK, CABIN, BRIDGE)}
ADA = Person(2, "Ada Holloway", label="a friend")
BERT = Person(3, "Bert Crane", asleep=True)
WATCH, LETTER = Thing(100, "Pocket watch"), Thing(101, "Sealed letter")
ALL = ("interact", "move", "communicate", "sleep", "attack")
RUNGS = (RungSpec(0, "Panic", "nothing", ("interact", "move", "communicate", "sleep"), None),
         RungSpec(1, "Name", "your name", ALL, "name_prop"))


KNOWS = {0: frozenset(), 1: frozenset({OWN_NAME, SETTING, ITEM_NAMES, PEOPLE_NAMES, TRUST_LABELS})}


def see(rung, people=(ADA, BERT), things=(WATCH, LETTER)):
    return perceive(agent_id=1, rung=rung, knows=KNOWS[rung], room=SALON, room_description="Chandeliers sway.", scale="vast",
                    ambient_noise="low", people=list(people), things=list(things), exits=[DECK, CABIN],
                    rooms_by_name=ROOMS)


def schema_for(situation, rooms=()):
    return action_schema(situation, rung_spec(RUNGS, situation.rung).allowed_actions, rooms)


def targets_of(schema) -> list[str]:
    target = schema["properties"]["target_character"]
    return target["anyOf"][0]["enum"] if "anyOf" in target else []


def test_rung_0_schema_lists_only_labels():
    schema = schema_for(see(0))
    assert targets_of(schema) == ["someone (unknown 1)", "someone (unknown 2)", "indistinct object 1",
                                  "indistinct object 2", "Promenade Deck", "Cabin C-62"]
    text = json.dumps(schema)
    for secret in ("Ada", "Holloway", "Bert", "Crane", "Pocket watch", "Sealed letter", "friend"):
        assert secret not in text


def test_rung_1_schema_names_people_and_items_as_the_prompt_does():
    assert targets_of(schema_for(see(1)))[:4] == ["Ada Holloway", "Bert Crane", "Pocket watch", "Sealed letter"]


def test_a_forbidden_action_type_is_not_in_the_schema():
    assert schema_for(see(0))["properties"]["action_type"]["enum"] == ["interact", "move", "communicate", "sleep"]
    assert "attack" in schema_for(see(1))["properties"]["action_type"]["enum"]


def test_a_person_who_has_left_is_not_in_the_schema():
    before, after = schema_for(see(1)), schema_for(see(1, people=(BERT,)))
    assert "Ada Holloway" in targets_of(before) and "Ada Holloway" not in targets_of(after)
    assert "someone (unknown 2)" not in targets_of(schema_for(see(0, people=(BERT,))))


def test_the_room_it_stands_in_is_not_a_target_and_rooms_its_prompt_names_are():
    situation = see(1)
    assert "Grand Salon" not in targets_of(schema_for(situation))
    prompt = "You remember the Bridge at dawn.\n" + render_situation(situation)
    rooms = rooms_named(prompt, ROOMS)
    assert rooms == ("Grand Salon", "Promenade Deck", "Cabin C-62", "Bridge")
    assert targets_of(schema_for(situation, rooms))[-3:] == ["Promenade Deck", "Cabin C-62", "Bridge"]
    assert "Bridge" not in targets_of(schema_for(situation))  # a room no prompt line names stays out


def test_the_six_keys_are_required_and_nothing_else_is_allowed():
    schema = schema_for(see(1))
    assert schema["required"] == list(KEYS) and list(schema["properties"]) == list(KEYS)
    assert schema["additionalProperties"] is False
    duration = schema["properties"]["duration_minutes"]
    assert (duration["type"], duration["minimum"], duration["maximum"]) == ("integer", 1, 480)
    good = {"action_type": "communicate", "target_character": None, "volume": "whisper", "dialogue": "Hello",
            "duration_minutes": 3, "internal_monologue": "..."}
    jsonschema_rs.validate(schema, good)
    for bad in ({**good, "mood": "calm"}, {**good, "duration_minutes": 481}, {**good, "volume": "sing"},
                {**good, "target_character": "Grand Salon"}, {k: v for k, v in good.items() if k != "volume"}):
        with pytest.raises(jsonschema_rs.ValidationError):
            jsonschema_rs.validate(schema, bad)


def test_nobody_here_and_no_items_leaves_only_rooms():
    assert nameable_targets(see(1, people=(), things=())) == ["Promenade Deck", "Cabin C-62"]


people_st = st.lists(st.sampled_from([ADA, BERT, Person(5, "Cora Vance", label="distrusted"), Person(6, "Dai Ng")]),
                     unique=True, max_size=4)
things_st = st.lists(st.sampled_from([WATCH, LETTER, Thing(102, "Brass key")]), unique=True, max_size=3)


@given(rung=st.sampled_from([0, 1]), people=people_st, things=things_st)
def test_every_target_the_prompt_shows_is_in_the_schema_and_every_schema_target_resolves(rung, people, things):
    situation = see(rung, people=people, things=things)
    prompt = render_situation(situation)
    targets = targets_of(schema_for(situation, rooms_named(prompt, ROOMS)))
    shown = [label for label, _, _ in situation.people] + [label for label, _ in situation.things]
    assert all(label in targets for label in shown + [p.name for p in situation.exits])
    for name in targets:
        assert name in prompt  # the schema reveals nothing the prompt does not
        kinds = {"room": "move", "prop": "interact", "person": "interact"}
        kind = situation.targets[name.lower()][0]
        assert resolve_target(situation, Action(kinds[kind], name, "normal", "", 3, "")) == (kind, situation.targets[name.lower()][1])


def test_the_parser_still_validates_what_a_schema_would_allow():
    # a schema cannot say that communicate needs words: the boundary still does
    answer = {"action_type": "communicate", "target_character": None, "volume": "normal", "dialogue": "",
              "duration_minutes": 3, "internal_monologue": ""}
    jsonschema_rs.validate(schema_for(see(1)), answer)
    assert parse_action(json.dumps(answer)).reason == "communicate needs a non-empty dialogue"


# --- how each profile form carries the schema ------------------------------------------------
def test_response_format_per_form():
    schema = schema_for(see(0))
    assert structured.response_format("none", schema) is None
    assert structured.response_format("json_object", schema) == {"type": "json_object"}
    assert structured.response_format("json_schema", schema) == {
        "type": "json_schema", "json_schema": {"name": "voyage_action", "schema": schema, "strict": True}}
    assert structured.response_format("json_object_schema", schema) == {"type": "json_object", "schema": schema}
    # a call without a schema of its own (trust) gets plain JSON mode from the schema forms
    assert structured.response_format("json_schema", None) == {"type": "json_object"}
    with pytest.raises(ValueError, match="unknown structured output form 'xml'"):
        structured.response_format("xml", schema)
