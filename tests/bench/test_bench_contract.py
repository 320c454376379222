"""Pure tests of what bench realmodel measures (voyage.bench.contract): reasons with names replaced
by placeholders, and answers whose dialogue copies the rules or the turn's guide."""
import json
from types import SimpleNamespace

from voyage.bench.contract import action_mix, copies_example, copies_rules, dialogue_of, reason_shape
from world.rules.prompt_text import RULES

ROOMS = ["F Deck Passage", "Grand Salon", "Cabin C-62"]
PEOPLE = ["Eleanor Vance", "Ada Holloway"]
MESSAGES = [{"role": "system", "content": RULES + "\nYour state of mind — rung 0, Panic: you remember nothing."},
            {"role": "user", "content": "People here: someone (unknown 1).\n\nActions you may take now, and what each "
                                        "names: sleep (null).\nAn example of the form only (choose your own action): "
                                        '{"action_type": "sleep", "internal_monologue": "I need to rest."}\n\nYour turn.'}]


def test_the_same_mistake_about_two_rooms_is_one_shape():
    a = reason_shape("unknown target 'F Deck Passage': interact needs an object here or a person here", PEOPLE, (), ROOMS)
    b = reason_shape("unknown target 'Cabin C-62': interact needs an object here or a person here", PEOPLE, (), ROOMS)
    assert a == b == "unknown target '<target>': interact needs an object here or a person here"
    assert reason_shape("you are already in the Grand Salon", rooms=ROOMS) == "you are already in the <room>"
    assert reason_shape("someone (unknown 2) is no longer here") == "<person> is no longer here"
    assert reason_shape("Ada Holloway is no longer here", PEOPLE) == "<person> is no longer here"
    assert reason_shape("duration_minutes must be one of 1, 3 (got 7)") == "duration_minutes must be one of 1, 3 (got <value>)"


def test_dialogue_copying_the_rules_or_the_guide_is_parroting_and_own_words_are_not():
    assert copies_rules("dialogue and internal_monologue (your private thought) are in your own words", MESSAGES)
    assert copies_rules("I need to rest.", MESSAGES)  # the example's words
    assert not copies_rules("Where am I? Who are you?", MESSAGES)
    assert not copies_rules("someone (unknown 1)", MESSAGES)  # the situation is not the rules
    assert not copies_rules("", MESSAGES)


def test_dialogue_is_read_even_with_a_raw_line_break():
    raw = json.dumps({"dialogue": "one\ntwo"}).replace("\\n", "\n")
    assert dialogue_of(raw) == "one\ntwo" and dialogue_of("not json") == "" and dialogue_of("[1]") == ""


def test_an_answer_that_is_the_example_key_for_key_is_counted_as_copied():
    assert copies_example('{ "internal_monologue": "I need to rest.", "action_type": "sleep"}', MESSAGES)
    assert not copies_example('{"action_type": "sleep", "internal_monologue": "Tired."}', MESSAGES)
    assert not copies_example("not json", MESSAGES)


def test_the_mix_of_actions_counts_answered_calls_by_action_type():
    calls = [SimpleNamespace(answered=True, raw_answer=raw) for raw in (
        '{"action_type": "move"}', '{"action_type": "sleep"}', '{"action_type": "move"}', "not json", "[1]")]
    calls.append(SimpleNamespace(answered=False, raw_answer=""))
    assert action_mix(calls) == {"move": 2, "?": 2, "sleep": 1}
    assert action_mix([]) == {}
