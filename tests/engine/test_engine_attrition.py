"""Social attrition: an agent alone and awake in a private room long enough sets a rumour going to
every other living agent; company or sleep resets the count."""
import pytest

from tests.engine_helpers import ScriptedGateway, agent, cast_of, events, memories, new_run, stage, step

pytestmark = pytest.mark.django_db

BUSY = {"busy_until_tick": 10_000}
RUMOUR = "Word goes round that whoever has the Cabin B-52 keeps to it and will not show their face."


def test_keeping_to_a_cabin_sets_a_rumour_going_to_everyone_else():
    run = new_run(attrition_threshold=3)
    hermit, corridor, lounge, offstage = cast_of(4)
    stage(run, {hermit: {"room": "cabin_b52", **BUSY}, corridor: {"room": "b_deck_corridor", **BUSY},
                lounge: {"room": "first_class_lounge", "asleep": True, **BUSY}})
    gateway = ScriptedGateway()
    step(run, gateway, 2)
    assert agent(run, hermit).attrition == 2
    assert not events(run, "attrition") and not memories(run, corridor, kind="suspicion")
    step(run, gateway)  # the third tick alone
    [rumour] = events(run, "attrition")
    assert rumour.actor_id == agent(run, hermit).id and rumour.text == RUMOUR
    assert memories(run, corridor, kind="suspicion") == [RUMOUR]
    assert memories(run, lounge, kind="suspicion") == [RUMOUR]  # asleep, yet told: it is word going round
    assert memories(run, hermit, kind="suspicion") == []
    assert memories(run, offstage, kind="suspicion") == []  # the dead hear no gossip
    assert agent(run, hermit).attrition == 0  # the count starts again


def test_company_in_the_cabin_stops_the_count():
    run = new_run(attrition_threshold=3)
    hermit, visitor, other = cast_of(3)
    stage(run, {hermit: {"room": "cabin_b52", **BUSY}, visitor: {"room": "cabin_b52", **BUSY},
                other: {"room": "b_deck_corridor", **BUSY}})
    step(run, ScriptedGateway(), 4)
    assert not events(run, "attrition")
    assert agent(run, hermit).attrition == 0 and agent(run, visitor).attrition == 0


def test_sleeping_alone_in_a_cabin_is_not_keeping_to_it():
    run = new_run(attrition_threshold=3)
    hermit, other = cast_of(2)
    stage(run, {hermit: {"room": "cabin_b52", "asleep": True, **BUSY}, other: {"room": "b_deck_corridor", **BUSY}})
    step(run, ScriptedGateway(), 4)
    assert not events(run, "attrition") and agent(run, hermit).attrition == 0
