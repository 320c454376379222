"""Pure tests for world.rules.actions: the six-key action contract."""
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from world.rules.actions import (
    ACTION_TYPES,
    DURATIONS,
    IGNORED,
    KEYS,
    MAX_DURATION,
    MAX_TEXT,
    VOLUMES,
    Action,
    ActionFail,
    action_from_dict,
    ignored_note,
    parse_action,
)

HYP = settings(max_examples=200, deadline=None)


def good(**over):
    base = {
        "action_type": "communicate",
        "target_character": "Ada Holloway",
        "volume": "normal",
        "dialogue": "Good evening.",
        "duration_minutes": 3,
        "internal_monologue": "She must not guess.",
    }
    base.update(over)
    return base


def raw(**over):
    return json.dumps(good(**over))


def without(key):
    d = good()
    del d[key]
    return json.dumps(d)


def check_contract(result):
    assert isinstance(result, (Action, ActionFail))
    if isinstance(result, ActionFail):
        assert isinstance(result.reason, str) and result.reason.strip()
        return
    assert result.action_type in ACTION_TYPES
    assert result.volume in VOLUMES
    assert type(result.duration_minutes) is int and result.duration_minutes in DURATIONS
    assert result.target is None or isinstance(result.target, str)
    assert isinstance(result.dialogue, str) and len(result.dialogue) <= MAX_TEXT
    assert isinstance(result.internal_monologue, str) and len(result.internal_monologue) <= MAX_TEXT
    if result.action_type in ("interact", "move", "attack"):
        assert result.target
    if result.action_type == "communicate":
        assert result.dialogue
        assert result.ignored == ()
        if result.volume == "whisper":
            assert result.target
    else:  # what the action does not use is set aside: nothing of it is said
        assert result.dialogue == "" and result.volume == "normal"
        assert set(result.ignored) <= {"volume", "dialogue"}


MALFORMED = [
    ("", "not valid JSON"),
    ("I will move to the deck.", "not valid JSON"),
    ("{'action_type': 'move'}", "not valid JSON"),
    ('{"action_type": "move",', "not valid JSON"),
    ("[" * 5000 + "]" * 5000, "not valid JSON"),  # too deep to parse
    ("[]", "not an object (got list)"),
    (json.dumps([good()]), "not an object (got list)"),
    ('"move"', "not an object (got str)"),
    ("42", "not an object (got int)"),
    ("null", "not an object (got NoneType)"),
    ("{}", "missing key(s): action_type, target_character"),
    (without("action_type"), "missing key(s): action_type"),
    (without("internal_monologue"), "missing key(s): internal_monologue"),
    (without("duration_minutes"), "missing key(s): duration_minutes"),
    (raw(reasoning="hm"), "unexpected key(s): reasoning"),
    (raw(Action_Type="move"), "unexpected key(s): Action_Type"),
    (raw(action_type="dance"), "action_type must be one of"),
    (raw(action_type="Move"), "action_type must be one of"),
    (raw(action_type=None), "action_type must be one of"),
    (raw(action_type=["move"]), "action_type must be one of"),
    (raw(target_character=7), "target_character must be a string or null"),
    (raw(target_character=["Ada"]), "target_character must be a string or null"),
    (raw(volume="loud"), "volume must be one of whisper, normal, shout to communicate"),
    (raw(volume=None), "volume must be one of whisper, normal, shout to communicate"),
    (raw(volume="SHOUT"), "to communicate"),
    # a field the action ignores is still refused when it is out of range or of the wrong type
    (raw(action_type="move", volume="loud"), "volume must be one of whisper, normal, shout or null (got \"loud\")"),
    (raw(action_type="sleep", target_character=None, volume=3), "volume must be one of whisper, normal, shout or null"),
    (raw(action_type="interact", volume=None, dialogue=7), "dialogue must be a string"),
    (raw(action_type="move", dialogue="a" * (MAX_TEXT + 1)), f"dialogue must be at most {MAX_TEXT} characters"),
    (raw(action_type="move", dialogue="two\nlines"), "dialogue must be one line with no control character"),
    (raw(action_type="sleep", target_character="Ada Holloway", volume=None, dialogue=""),
     "sleep takes no target_character"),
    (raw(dialogue=None), "dialogue must be a string"),
    (raw(internal_monologue=None), "internal_monologue must be a string"),
    (raw(dialogue="line one\nline two"), "dialogue must be one line with no control character"),
    (raw(internal_monologue="tab\there"), "internal_monologue must be one line with no control character"),
    (raw(dialogue="a" * (MAX_TEXT + 1)), f"dialogue must be at most {MAX_TEXT} characters (got {MAX_TEXT + 1})"),
    (raw(internal_monologue="b" * (MAX_TEXT * 2)), f"internal_monologue must be at most {MAX_TEXT} characters"),
    # a raw line break inside a string: JSON but for that, and the reason says so
    (raw(dialogue="line one\nline two").replace("\\n", "\n"), "a string in it holds a raw control character"),
    (raw(dialogue=5), "dialogue must be a string"),
    (raw(dialogue=["hi"]), "dialogue must be a string"),
    (raw(dialogue={"text": "hi"}), "dialogue must be a string"),
    (raw(dialogue=""), "communicate needs a non-empty dialogue"),
    (raw(dialogue="   "), "communicate needs a non-empty dialogue"),
    (raw(duration_minutes="5"), "whole number of minutes"),
    (raw(duration_minutes=2.5), "whole number of minutes"),
    (raw(duration_minutes=None), "whole number of minutes"),
    (raw(duration_minutes=True), "whole number of minutes"),
    (raw(duration_minutes=False), "whole number of minutes"),
    (raw(duration_minutes=[5]), "whole number of minutes"),
    (raw(duration_minutes=0), "duration_minutes must be one of 1, 3, 6, 10, 15, 30, 45, 60, 90, 120, 180, 240, 360, 480 (got 0)"),
    (raw(duration_minutes=-3), "(got -3)"),
    (raw(duration_minutes=481), "(got 481)"),
    (raw(duration_minutes=7), "must be one of 1, 3, 6"),  # a whole number, but not a duration of the list
    (raw(duration_minutes=10**30), "duration_minutes must be one of"),
    (raw(internal_monologue=3), "internal_monologue must be a string"),
    (raw(volume="whisper", target_character=None), "a whisper needs a target_character"),
    (raw(volume="whisper", target_character="   "), "a whisper needs a target_character"),
    (raw(action_type="move", target_character=None, volume=None, dialogue=""), "move needs a target_character"),
    (raw(action_type="move", target_character="", volume=None, dialogue=""), "move needs a target_character"),
    (raw(action_type="interact", target_character=None, volume=None, dialogue=""), "interact needs a target_character"),
    (raw(action_type="attack", target_character="  ", volume=None, dialogue=""), "attack needs a target_character"),
]


@pytest.mark.parametrize("text, fragment", MALFORMED)
def test_malformed_input_is_an_action_fail(text, fragment):
    result = parse_action(text)
    assert isinstance(result, ActionFail), result
    assert fragment in result.reason


def test_long_bad_value_is_shortened_in_reason():
    result = parse_action(raw(action_type="x" * 500))
    assert isinstance(result, ActionFail)
    assert len(result.reason) < 150


# --- valid inputs ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "data, expected",
    [
        (good(), Action("communicate", "Ada Holloway", "normal", "Good evening.", 3, "She must not guess.")),
        (good(volume="whisper"), Action("communicate", "Ada Holloway", "whisper", "Good evening.", 3, "She must not guess.")),
        (good(volume="shout", target_character=None, dialogue="Fire!"), Action("communicate", None, "shout", "Fire!", 3, "She must not guess.")),
        (good(target_character=None), Action("communicate", None, "normal", "Good evening.", 3, "She must not guess.")),
        (good(action_type="move", target_character="Promenade Deck", volume=None, dialogue="", duration_minutes=1),
         Action("move", "Promenade Deck", "normal", "", 1, "She must not guess.")),
        (good(action_type="interact", target_character="  Pocket watch ", volume=None, dialogue="", duration_minutes=480),
         Action("interact", "Pocket watch", "normal", "", 480, "She must not guess.")),
        (good(action_type="sleep", target_character=None, volume=None, dialogue="", duration_minutes=240, internal_monologue=""),
         Action("sleep", None, "normal", "", 240, "")),
        (good(action_type="attack", target_character="Bert Crane", volume=None, dialogue="", duration_minutes=6.0),
         Action("attack", "Bert Crane", "normal", "", 6, "She must not guess.")),
        (good(dialogue='She said "now" \\ then.'), Action("communicate", "Ada Holloway", "normal",
                                                        'She said "now" \\ then.', 3, "She must not guess.")),
        (good(dialogue="  padded  ", internal_monologue="  think  "),
         Action("communicate", "Ada Holloway", "normal", "padded", 3, "think")),
    ],
)
def test_valid_input_round_trips(data, expected):
    assert parse_action(json.dumps(data)) == expected
    assert action_from_dict(data) == expected


# --- fields the action ignores ---------------------------------------------------------------------
TARGETS = {"move": "Promenade Deck", "interact": "Pocket watch", "attack": "Bert Crane", "sleep": None}


@pytest.mark.parametrize("action_type", sorted(TARGETS))
@pytest.mark.parametrize("volume, dialogue, ignored", [
    ("shout", "Over here, all of you!", ("volume", "dialogue")),
    ("normal", "", ("volume",)),
    ("whisper", "   ", ("volume",)),  # blank words are no words
    (None, "I say nothing of this.", ("dialogue",)),
])
def test_stray_volume_and_dialogue_are_set_aside(action_type, volume, dialogue, ignored):
    result = parse_action(raw(action_type=action_type, target_character=TARGETS[action_type], volume=volume,
                              dialogue=dialogue, duration_minutes=3))
    assert isinstance(result, Action), result
    assert (result.action_type, result.target) == (action_type, TARGETS[action_type])
    assert (result.volume, result.dialogue, result.ignored) == ("normal", "", ignored)
    assert ignored_note(result) == f"{' and '.join(ignored)} ignored: {action_type}"


def test_a_clean_answer_ignores_nothing():
    for data in (good(), good(action_type="sleep", target_character=None, volume=None, dialogue="")):
        result = action_from_dict(data)
        assert result.ignored == () and ignored_note(result) == ""


def test_only_communicate_uses_volume_and_dialogue():
    assert IGNORED == {"communicate": (), "move": ("volume", "dialogue"), "interact": ("volume", "dialogue"),
                       "sleep": ("volume", "dialogue"), "attack": ("volume", "dialogue")}


@pytest.mark.parametrize("data, fragment", [
    # what the action cannot do still fails, whatever it also filled in
    (good(action_type="sleep", target_character="Ada Holloway", volume="normal"), "sleep takes no target_character"),
    (good(action_type="move", target_character=None, volume="shout"), "move needs a target_character"),
    (good(action_type="attack", target_character=" ", dialogue="Take that!"), "attack needs a target_character"),
    (good(action_type="dance", volume="normal"), "action_type must be one of"),
    (good(action_type="move", target_character="Deck", duration_minutes=7), "duration_minutes must be one of"),
    (good(action_type="move", target_character="Deck", volume="LOUD"), "volume must be one of"),
    (good(volume=None), "volume must be one of whisper, normal, shout to communicate"),
    (good(dialogue=""), "communicate needs a non-empty dialogue"),
])
def test_what_the_action_cannot_do_still_fails(data, fragment):
    result = action_from_dict(data)
    assert isinstance(result, ActionFail) and fragment in result.reason, result


def test_key_order_does_not_matter():
    data = good()
    reordered = {k: data[k] for k in reversed(KEYS)}
    assert parse_action(json.dumps(reordered)) == parse_action(json.dumps(data))


def test_surrounding_whitespace_is_fine():
    assert isinstance(parse_action("\n  " + raw() + "  \n"), Action)


def test_text_up_to_the_bound_is_taken_whole():
    result = parse_action(raw(dialogue="a" * MAX_TEXT, internal_monologue="b" * MAX_TEXT))
    assert isinstance(result, Action)
    assert result.dialogue == "a" * MAX_TEXT and result.internal_monologue == "b" * MAX_TEXT


@pytest.mark.parametrize("action_type", ACTION_TYPES)
def test_every_action_type_parses(action_type):
    speaks = action_type == "communicate"
    target = None if action_type == "sleep" else "Ada Holloway"
    result = parse_action(raw(action_type=action_type, target_character=target, volume="normal" if speaks else None,
                              dialogue="Good evening." if speaks else ""))
    assert isinstance(result, Action)
    assert result.action_type == action_type


@pytest.mark.parametrize("minutes", DURATIONS)
def test_duration_bounds_accepted(minutes):
    result = parse_action(raw(duration_minutes=minutes))
    assert isinstance(result, Action) and result.duration_minutes == minutes


# --- once bugs, now fixed -----------------------------------------------------------------------------------
@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_duration_is_an_action_fail(literal):
    text = raw(duration_minutes=12345).replace("12345", literal)
    result = parse_action(text)
    assert isinstance(result, ActionFail)
    assert "whole number" in result.reason


def test_deeply_nested_bad_value_never_raises():
    def attempt(depth):
        text = json.dumps(good()).replace('"communicate"', "[" * depth + "]" * depth, 1)
        return parse_action(text)

    for depth in range(600, 1300):
        check_contract(attempt(depth))


# --- property tests -------------------------------------------------------------------------------
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(), children, max_size=5),
    max_leaves=20,
)

# Values near the contract's edges, to make valid Actions likely.
plausible = {
    "action_type": st.sampled_from(ACTION_TYPES + ("Move", "", "dance")) | json_values,
    "target_character": st.none() | st.sampled_from(["Ada", "  ", "", "Grand Salon"]) | json_values,
    "volume": st.none() | st.sampled_from(VOLUMES + ("loud",)) | json_values,
    "dialogue": st.none() | st.text(max_size=20) | json_values,
    "duration_minutes": st.integers(-5, 500) | st.floats(-5, 500, allow_nan=False) | json_values,
    "internal_monologue": st.none() | st.text(max_size=20) | json_values,
}


@HYP
@given(st.text())
def test_arbitrary_text_never_raises(text):
    result = parse_action(text)
    assert isinstance(result, (Action, ActionFail))
    if isinstance(result, ActionFail):
        assert result.reason.strip()
    check_contract(result)


@HYP
@given(json_values)
def test_arbitrary_json_never_raises(value):
    check_contract(parse_action(json.dumps(value)))


@HYP
@given(st.fixed_dictionaries({k: json_values for k in KEYS}))
def test_six_keys_with_arbitrary_json_values(data):
    check_contract(parse_action(json.dumps(data)))
    check_contract(action_from_dict(data))


@HYP
@given(st.fixed_dictionaries(plausible))
def test_six_keys_with_plausible_values(data):
    result = parse_action(json.dumps(data))
    check_contract(result)
    if isinstance(result, Action):
        assert result.action_type == data["action_type"]
        assert result.duration_minutes == data["duration_minutes"]


@HYP
@given(
    st.dictionaries(st.sampled_from(KEYS + ("extra", "Volume")), json_values, max_size=8),
)
def test_arbitrary_subsets_of_keys(data):
    result = parse_action(json.dumps(data))
    check_contract(result)
    if set(data) != set(KEYS):
        assert isinstance(result, ActionFail)
