"""The example answer as a run parameter (Run.example_answer): rotating (the default, the guide as
before), neutral (the same answer every turn, naming no one) or none. Pure tests of the guide, and
a short run of each mode: the default's transcript is the offline reference."""
import io
import json

import pytest
from django.core.management import call_command

from tests.oracle import assert_same_transcript
from tests.world.test_action_schema import ROOMS, RUNGS, schema_for, see, valid
from voyage.health.answers import allowed_in, example_in
from voyage.models import LLMCall, Run
from world.rules.action_schema import rooms_named
from world.rules.perception import render_situation
from world.rules.prompt_text import RULES, WHAT_EACH_NAMES, example_answer, names_line, turn_guide

NAMES = ("Ada", "Bert", "Pocket watch", "Sealed letter", "Promenade Deck", "Cabin C-62")


def test_the_default_guide_is_the_rotating_one_as_before():
    situation, allowed = see(1), RUNGS[1].allowed_actions
    guide = turn_guide(situation, allowed, key="p01:7")
    assert guide == turn_guide(situation, allowed, key="p01:7", example="rotating")
    assert example_in(guide) == example_answer(situation, allowed, "p01:7")


@pytest.mark.parametrize("rung", [0, 1])
def test_the_neutral_example_names_no_one_is_the_same_every_turn_and_keeps_the_schema(rung):
    situation, allowed = see(rung), RUNGS[rung].allowed_actions
    schema = schema_for(situation, rooms_named(render_situation(situation), ROOMS))
    shown = {json.dumps(example_in(turn_guide(situation, allowed, key=f"p{a}:{t}", example="neutral")))
             for a in range(5) for t in range(5)}
    assert len(shown) == 1
    example = json.loads(shown.pop())
    assert example["target_character"] is None and valid(schema, example)
    assert not any(name in json.dumps(example) for name in NAMES)


def test_no_example_leaves_the_allowed_actions_alone():
    situation, allowed = see(1), RUNGS[1].allowed_actions
    guide = turn_guide(situation, allowed, key="p01:7", example="none")
    assert example_in(guide) is None and "example" not in guide
    assert allowed_in(guide) == allowed_in(turn_guide(situation, allowed, key="p01:7"))


@pytest.mark.parametrize("mode", ["rotating", "neutral", "none"])
@pytest.mark.parametrize("rung", [0, 1])
def test_the_cached_layouts_compact_guide_says_the_same_in_fewer_characters(mode, rung):
    """The cached layout closes each turn with the actions allowed now alone and the example without
    spaces; what each action names it says once, in its system message (names_line)."""
    situation, allowed = see(rung), RUNGS[rung].allowed_actions
    full = turn_guide(situation, allowed, key="p01:7", example=mode)
    compact = turn_guide(situation, allowed, key="p01:7", example=mode, compact=True)
    assert len(compact) < len(full)
    assert allowed_in(compact) == allowed_in(full) and example_in(compact) == example_in(full)
    for action in allowed_in(full):
        said = f"{action} ({WHAT_EACH_NAMES[action]})"
        assert said in full and (said in names_line(allowed) or action == "sleep" and "Sleep names nobody" in RULES)


@pytest.mark.django_db
def test_run_voyage_takes_the_mode_and_each_prompt_shows_it():
    lines = {}
    for mode in ("rotating", "neutral", "none"):
        out = io.StringIO()
        call_command("run_voyage", "--ticks", "3", "--example-answer", mode, stdout=out, stderr=io.StringIO())
        lines[mode] = json.loads(out.getvalue())
        run = Run.objects.get(pk=lines[mode]["run_id"])
        assert run.example_answer == mode
        examples = [example_in(c.prompt[-1]["content"]) for c in LLMCall.objects.filter(run=run, purpose="action")]
        assert examples
        if mode == "none":
            assert examples == [None] * len(examples)
        elif mode == "neutral":
            assert len({json.dumps(e) for e in examples}) <= 2  # a word to the room (or a sleep where it cannot)
        else:
            assert len({json.dumps(e) for e in examples}) > 10
    # the offline policy does not read the example: the transcript is the same whatever the prompt shows
    rotating, neutral, none = (Run.objects.get(pk=line["run_id"]) for line in lines.values())
    assert_same_transcript(rotating, neutral)
    assert_same_transcript(rotating, none)
