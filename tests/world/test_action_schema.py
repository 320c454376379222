"""Pure tests of the per-call action schema (world.rules.action_schema) and of how each profile form
carries it (voyage.gateway.structured): one branch per allowed action, each aiming only at what
that action can take here; every answer the schema takes is one the parser and the engine take."""
import json

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voyage.gateway import structured
from world.rules.action_schema import action_branches, action_schema, has_branch, nameable_targets, rooms_named
from world.rules.actions import DURATIONS, KEYS, MAX_TEXT, Action, parse_action
from world.rules.ladder import ITEM_NAMES, OWN_NAME, PEOPLE_NAMES, SETTING, TRUST_LABELS, RungSpec, rung_spec
from world.rules.perception import Person, Place, Thing, perceive, render_situation, resolve_target
from world.rules.prompt_text import example_answer

SALON, DECK, CABIN, BRIDGE = Place(10, "Grand Salon"), Place(11, "Promenade Deck"), Place(12, "Cabin C-62"), Place(13, "Bridge")
ROOMS = {p.name: p.room_id for p in (SALON, DECK, CABIN, BRIDGE)}
ADA = Person(2, "Ada Holloway", label="a friend")
BERT = Person(3, "Bert Crane", asleep=True)
WATCH, LETTER = Thing(100, "Pocket watch"), Thing(101, "Sealed letter")
ALL = ("interact", "move", "communicate", "sleep", "attack")
RUNGS = (RungSpec(0, "Panic", "nothing", ("interact", "move", "communicate", "sleep"), None),
         RungSpec(1, "Name", "your name", ALL, "name_prop"))


KNOWS = {0: frozenset(), 1: frozenset({OWN_NAME, SETTING, ITEM_NAMES, PEOPLE_NAMES, TRUST_LABELS})}


def see(rung, people=(ADA, BERT), things=(WATCH, LETTER), exits=(DECK, CABIN)):
    return perceive(agent_id=1, rung=rung, knows=KNOWS[rung], room=SALON, room_description="Chandeliers sway.", scale="vast",
                    ambient_noise="low", people=list(people), things=list(things), exits=list(exits),
                    rooms_by_name=ROOMS)


def schema_for(situation, rooms=()):
    return action_schema(situation, rung_spec(RUNGS, situation.rung).allowed_actions, rooms)


def branches(schema, action_type=None) -> list[dict]:
    return [b["properties"] for b in schema["anyOf"]
            if action_type is None or b["properties"]["action_type"]["const"] == action_type]


def targets_of(schema, action_type=None) -> list[str]:
    """Every name some branch (of one action type) lets the model write as its target."""
    names = []
    for b in branches(schema, action_type):
        names += [n for n in b["target_character"].get("enum", []) if n not in names]
    return names


def valid(schema, answer) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(answer)


def answer(action_type, target=None, volume=None, dialogue="", minutes=3, thought="Hm."):
    return {"action_type": action_type, "target_character": target, "volume": volume, "dialogue": dialogue,
            "duration_minutes": minutes, "internal_monologue": thought}


def test_the_schema_is_itself_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(schema_for(see(1)))


def test_one_branch_per_action_each_with_its_constant_and_the_six_keys():
    schema = schema_for(see(1))
    kinds = [b["action_type"]["const"] for b in branches(schema)]
    assert kinds == ["interact", "move", "communicate", "communicate", "sleep", "attack"]  # communicate: to a person, to the room
    for b in schema["anyOf"]:
        assert b["required"] == list(KEYS) and list(b["properties"]) == list(KEYS)
        assert b["additionalProperties"] is False


def test_rung_0_schema_lists_only_labels():
    schema = schema_for(see(0))
    assert targets_of(schema) == ["someone (unknown 1)", "someone (unknown 2)", "indistinct object 1",
                                  "indistinct object 2", "Promenade Deck", "Cabin C-62"]
    text = json.dumps(schema)
    for secret in ("Ada", "Holloway", "Bert", "Crane", "Pocket watch", "Sealed letter", "friend"):
        assert secret not in text


def test_rung_1_schema_names_people_and_items_as_the_prompt_does():
    assert targets_of(schema_for(see(1)), "interact") == ["Ada Holloway", "Bert Crane", "Pocket watch", "Sealed letter"]


def test_each_action_aims_only_at_what_it_can_take():
    schema = schema_for(see(1))
    assert targets_of(schema, "move") == ["Promenade Deck", "Cabin C-62"]
    assert targets_of(schema, "attack") == ["Ada Holloway", "Bert Crane"]
    assert targets_of(schema, "communicate") == ["Ada Holloway", "Bert Crane"]
    # the mistake SmolLM2 made most: interact aimed at a way out
    assert not valid(schema, answer("interact", "Promenade Deck"))
    assert not valid(schema, answer("move", "Pocket watch"))
    assert not valid(schema, answer("attack", "Pocket watch"))
    assert valid(schema, answer("interact", "Pocket watch")) and valid(schema, answer("move", "Cabin C-62"))


def test_a_forbidden_action_type_is_not_in_the_schema():
    assert [b["action_type"]["const"] for b in branches(schema_for(see(0)))] == [
        "interact", "move", "communicate", "communicate", "sleep"]
    assert not valid(schema_for(see(0)), answer("attack", "someone (unknown 1)"))
    assert valid(schema_for(see(1)), answer("attack", "Ada Holloway"))


def test_a_branch_with_nothing_to_aim_at_is_left_out():
    alone = schema_for(see(1, people=(), things=()))
    assert [b["action_type"]["const"] for b in branches(alone)] == ["move", "communicate", "sleep"]
    (to_room,) = branches(alone, "communicate")
    assert to_room["target_character"] == {"type": "null"} and to_room["volume"]["enum"] == ["normal", "shout"]
    nowhere = schema_for(see(1, people=(), things=(), exits=()))
    assert [b["action_type"]["const"] for b in branches(nowhere)] == ["communicate", "sleep"]


def test_communicate_takes_a_person_with_any_volume_or_the_room_without_a_whisper():
    schema = schema_for(see(1))
    for volume in ("whisper", "normal", "shout"):
        assert valid(schema, answer("communicate", "Ada Holloway", volume, "Good evening."))
    assert valid(schema, answer("communicate", None, "shout", "Fire!"))
    assert not valid(schema, answer("communicate", None, "whisper", "Psst."))  # a whisper needs someone
    assert not valid(schema, answer("communicate", None, "normal", ""))  # words to say
    assert not valid(schema, answer("communicate", None, "normal", "   "))
    assert not valid(schema, answer("communicate", None, None, "Hello"))


def test_only_communicate_takes_a_volume_or_dialogue_and_sleep_names_nobody():
    schema = schema_for(see(1))
    assert not valid(schema, answer("move", "Cabin C-62", "normal"))
    assert not valid(schema, answer("interact", "Pocket watch", dialogue="What is this?"))
    assert not valid(schema, answer("sleep", "Ada Holloway", minutes=60))
    assert valid(schema, answer("sleep", None, minutes=60))


def test_durations_are_an_enum_and_strings_one_bounded_line():
    schema = schema_for(see(1))
    for b in branches(schema):
        assert b["duration_minutes"] == {"type": "integer", "enum": list(DURATIONS)}  # no minimum/maximum to drop
    assert not valid(schema, answer("sleep", minutes=7)) and not valid(schema, answer("sleep", minutes=481))
    said = "a" * MAX_TEXT
    assert valid(schema, answer("communicate", None, "normal", said, thought=said))
    assert not valid(schema, answer("communicate", None, "normal", said + "a"))
    assert not valid(schema, answer("sleep", thought=said + "b"))
    for control in ("\n", "\r", "\t", "\x00", "\x7f"):
        assert not valid(schema, answer("communicate", None, "normal", f"one{control}two"))
        assert not valid(schema, answer("sleep", thought=f"one{control}two"))


def test_the_room_it_stands_in_is_not_a_target_and_rooms_its_prompt_names_are():
    situation = see(1)
    assert "Grand Salon" not in targets_of(schema_for(situation))
    prompt = "You remember the Bridge at dawn.\n" + render_situation(situation)
    rooms = rooms_named(prompt, ROOMS)
    assert rooms == ("Grand Salon", "Promenade Deck", "Cabin C-62", "Bridge")
    assert targets_of(schema_for(situation, rooms), "move") == ["Promenade Deck", "Cabin C-62", "Bridge"]
    assert "Bridge" not in targets_of(schema_for(situation))  # a room no prompt line names stays out


def test_nobody_here_and_no_items_leaves_only_rooms():
    assert nameable_targets(see(1, people=(), things=())) == ["Promenade Deck", "Cabin C-62"]


people_st = st.lists(st.sampled_from([ADA, BERT, Person(5, "Cora Vance", label="distrusted"), Person(6, "Dai Ng")]),
                     unique=True, max_size=4)
things_st = st.lists(st.sampled_from([WATCH, LETTER, Thing(102, "Brass key")]), unique=True, max_size=3)
exits_st = st.lists(st.sampled_from([DECK, CABIN, BRIDGE]), unique=True, max_size=3)


@settings(max_examples=150, deadline=None)
@given(rung=st.sampled_from([0, 1]), people=people_st, things=things_st, exits=exits_st,
       named=st.lists(st.sampled_from(sorted(ROOMS)), max_size=3, unique=True))
def test_an_action_is_allowed_now_exactly_when_it_has_a_branch(rung, people, things, exits, named):
    """prompt_text.allowed_now asks has_branch, which builds nothing: it answers as action_branches
    would, for every action type (and one no rung allows), whoever and whatever is here, whatever the
    prompt names."""
    situation = see(rung, people=people, things=things, exits=exits)
    for action_type in (*ALL, "dance"):
        assert has_branch(action_type, situation, tuple(named)) == bool(action_branches(action_type, situation, tuple(named)))


def answers_the_schema_takes(schema):
    """Every answer a branch takes, but for the free text (a fixed sample of it)."""
    for b in branches(schema):
        for target in b["target_character"].get("enum", [None]):
            for volume in b["volume"].get("enum", [None]):
                said = "" if "const" in b["dialogue"] else "Good evening."
                for minutes in (DURATIONS[0], DURATIONS[-1]):
                    yield answer(b["action_type"]["const"], target, volume, said, minutes)


@settings(max_examples=150, deadline=None)
@given(rung=st.sampled_from([0, 1]), people=people_st, things=things_st, exits=exits_st)
def test_every_answer_the_schema_takes_the_parser_and_the_engine_take(rung, people, things, exits):
    situation = see(rung, people=people, things=things, exits=exits)
    prompt = render_situation(situation)
    schema = schema_for(situation, rooms_named(prompt, ROOMS))
    assert all(name in prompt for name in targets_of(schema))  # the schema reveals nothing the prompt does not
    shown = [label for label, _, _ in situation.people] + [label for label, _ in situation.things]
    assert set(shown) <= set(targets_of(schema))
    for taken in answers_the_schema_takes(schema):
        assert valid(schema, taken), taken
        action = parse_action(json.dumps(taken))
        assert isinstance(action, Action), (taken, action)
        resolved = resolve_target(situation, action)
        assert resolved is None or isinstance(resolved, tuple), (taken, resolved)
        assert (resolved is None) == (action.action_type == "sleep" or action.target is None)


plausible = st.fixed_dictionaries({
    "action_type": st.sampled_from(ALL + ("dance",)),
    "target_character": st.none() | st.sampled_from(["Ada Holloway", "someone (unknown 1)", "Pocket watch",
                                                     "indistinct object 1", "Promenade Deck", "Grand Salon", ""]),
    "volume": st.none() | st.sampled_from(("whisper", "normal", "shout", "loud")),
    "dialogue": st.sampled_from(["", " ", "Hello", "a\nb", "x" * (MAX_TEXT + 1)]) | st.text(max_size=8),
    "duration_minutes": st.sampled_from(DURATIONS) | st.integers(-5, 500),
    "internal_monologue": st.sampled_from(["", "Hm.", "a\tb"]) | st.text(max_size=8),
})


@settings(max_examples=300, deadline=None)
@given(rung=st.sampled_from([0, 1]), data=plausible)
def test_what_the_schema_takes_the_parser_takes(rung, data):
    """No gap on the schema's side: a schema-valid answer is never an ACTION_FAIL of the parser or
    of the target's resolution."""
    situation = see(rung)
    if valid(schema_for(situation), data):
        action = parse_action(json.dumps(data))
        assert isinstance(action, Action), (data, action)
        assert not hasattr(resolve_target(situation, action), "reason")


def test_what_the_parser_refuses_the_schema_refuses_too():
    schema = schema_for(see(1))
    for refused in (answer("move", "Cabin C-62", "loud"), answer("sleep", "Ada Holloway"), answer("sleep", minutes=7),
                    answer("communicate", None, "normal", "a\nb"), answer("communicate", None, "normal", "")):
        assert hasattr(parse_action(json.dumps(refused)), "reason") and not valid(schema, refused), refused


def test_the_branches_ask_null_where_the_parser_only_sets_a_volume_aside():
    """Where a schema can tie volume to communicate it does; where an answer sets one anyway (a flat
    schema, or none), the parser ignores it instead of failing the turn."""
    stray = answer("move", "Cabin C-62", "normal")
    assert not valid(schema_for(see(1)), stray)
    assert parse_action(json.dumps(stray)).ignored == ("volume",)



# --- the example answer each turn shows (world.rules.prompt_text) ---------------------------
KEYS_ST = st.lists(st.tuples(st.sampled_from(["p01", "p02", "p17", "officer"]), st.integers(0, 500)),
                   min_size=1, max_size=12)


@settings(max_examples=150, deadline=None)
@given(rung=st.sampled_from([0, 1]), people=people_st, things=things_st, exits=exits_st, keys=KEYS_ST)
def test_the_example_answer_always_keeps_the_agents_own_schema(rung, people, things, exits, keys):
    situation = see(rung, people=people, things=things, exits=exits)
    allowed = rung_spec(RUNGS, rung).allowed_actions
    schema = schema_for(situation, rooms_named(render_situation(situation), ROOMS))
    for agent, tick in keys:
        example = example_answer(situation, allowed, f"{agent}:{tick}")
        assert valid(schema, example), example
        assert example["action_type"] != "attack"
        assert isinstance(parse_action(json.dumps(example)), Action)
        assert example == example_answer(situation, allowed, f"{agent}:{tick}")  # a pure function of its inputs


def test_examples_vary_across_agents_and_ticks():
    """Not one action for everyone: over agents and ticks a full room's examples take every kind
    but attack and sleep, and name different things; one agent's example changes from tick to tick."""
    situation, allowed = see(1), RUNGS[1].allowed_actions
    examples = [example_answer(situation, allowed, f"p{agent:02d}:{tick}") for agent in range(12) for tick in range(10)]
    kinds = {e["action_type"] for e in examples}
    assert kinds == {"interact", "move", "communicate"}
    assert {e["target_character"] for e in examples if e["action_type"] == "interact"} == {
        "Pocket watch", "Sealed letter", "Ada Holloway", "Bert Crane"}
    assert {e["target_character"] for e in examples if e["action_type"] == "move"} == {"Promenade Deck", "Cabin C-62"}
    top = max(sum(e == x for e in examples) for x in examples)
    assert top < len(examples) / 4  # no single answer dominates
    at_tick = [example_answer(situation, allowed, f"p01:{tick}") for tick in range(10)]
    assert len({json.dumps(e) for e in at_tick}) > 3
    same_tick = [example_answer(situation, allowed, f"p{agent:02d}:7") for agent in range(12)]
    assert len({json.dumps(e) for e in same_tick}) > 3
    # with nothing to aim at, the example still fits: sleep
    alone = see(0, people=(), things=(), exits=())
    assert example_answer(alone, RUNGS[0].allowed_actions, "p01:1")["action_type"] == "sleep"
    # at rung 0 people and items are named only as the prompt shows them
    rung0 = [example_answer(see(0), RUNGS[0].allowed_actions, f"p{a:02d}:{t}") for a in range(6) for t in range(6)]
    assert not any(name in json.dumps(rung0) for name in ("Ada", "Bert", "Pocket watch", "Sealed letter"))


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


@pytest.mark.parametrize("status, body, refused", [
    (500, "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type')}]", True),  # llama-cpp-python
    (400, "Invalid schema for response_format 'voyage_action': anyOf at the root", True),  # OpenAI
    (422, "json_schema is not supported by this model", True),
    (500, "internal error", False),  # a transient fault: retried
    (503, "response_format overloaded", False),
    (401, "invalid api key; response_format", False),
    (429, "rate limited (response_format)", False),
    (400, "maximum context length is 8192 tokens", False),
])
def test_an_endpoint_refusing_the_form_is_told_from_a_transient_fault(status, body, refused):
    assert structured.refuses_form(status, body) is refused
