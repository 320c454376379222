"""Reflections on dramatic events: an alien object prompts one at once, and no agent reflects again
within its cooldown (the trigger waits, and fires when the cooldown ends)."""
import pytest

from tests.engine_helpers import ScriptedGateway, act, agent, cast_of, events, memories, new_run, stage, step

pytestmark = pytest.mark.django_db

ALIEN, SCENERY = "Plastic Cabin Key Card", "Steward's Call Board"  # both in the B Deck Corridor


def test_an_alien_object_prompts_a_reflection_and_the_cooldown_holds_the_next_one_back():
    run = new_run(importance_threshold=10_000)  # no tension spike: only the objects prompt reflections
    [examiner] = cast_of(1)
    stage(run, {examiner: {"room": "b_deck_corridor", "rung": 1}}, tick=100)
    gateway = ScriptedGateway({examiner: [act("interact", SCENERY)] + [act("interact", ALIEN)] * 14})
    step(run, gateway)  # tick 100: an ordinary object
    assert not events(run, "reflection")
    step(run, gateway)  # tick 101: the alien object, reflected on as the tick ends (new tick 102)
    [first] = events(run, "reflection")
    assert (first.tick, first.text) == (102, "an alien object")
    assert "(Prompted by an alien object.)" in gateway.prompts("reflection", examiner)[0]
    assert memories(run, examiner, kind="reflection", tick=102)
    step(run, gateway, 12)  # ticks 102-113: the alien object every tick
    ticks = [e.tick for e in events(run, "reflection")]
    assert ticks == [102, 112]  # cooldown 10: not at 103..111, and the pending trigger fires at 112
    assert agent(run, examiner).last_reflection_tick == 112


def test_the_cooldown_is_a_run_parameter():
    run = new_run(importance_threshold=10_000, reflection_cooldown=3)
    [examiner] = cast_of(1)
    stage(run, {examiner: {"room": "b_deck_corridor"}}, tick=100)
    step(run, ScriptedGateway({examiner: act("interact", "indistinct object 2")}), 8)  # rung 0: no names
    assert {e.data["prop"] for e in events(run, "interact")} == {ALIEN}
    assert [e.tick for e in events(run, "reflection")] == [101, 104, 107]
