"""Moving about the ship: one room per tick along the shortest path, departures and arrivals
observed by whoever is awake there; and in the simultaneous schedule, a person who walked off
before one's action resolved is "no longer here"."""
import pytest

from tests.engine_helpers import ScriptedGateway, act, agent, cast_of, events, memories, name_of, new_run, \
    people_shown, room_ids, stage, step
from voyage.models import LLMCall, Run
from world.models import AgentState

pytestmark = pytest.mark.django_db

BUSY = {"busy_until_tick": 10_000}


def test_a_walk_goes_one_room_a_tick_and_is_seen_leaving_and_arriving():
    run = new_run()
    walker, in_cabin, corridor_named, corridor_unknown, corridor_asleep, staircase, lounge = cast_of(7)
    stage(run, {
        walker: {"room": "cabin_b52"},
        in_cabin: {"room": "cabin_b52", "rung": 1, **BUSY},
        corridor_named: {"room": "b_deck_corridor", "rung": 1, **BUSY},
        corridor_unknown: {"room": "b_deck_corridor", **BUSY},  # rung 0: knows no names
        corridor_asleep: {"room": "b_deck_corridor", "asleep": True, **BUSY},
        staircase: {"room": "grand_staircase", "rung": 1, **BUSY},
        lounge: {"room": "first_class_lounge", "rung": 1, **BUSY},  # next to the staircase, not on the way
    })
    step(run, ScriptedGateway({walker: act("move", "Grand Staircase")}), 2)
    moves = events(run, "move")
    assert [(e.tick, e.data["from"], e.data["to"], e.data["arrived"]) for e in moves] == [
        (100, "cabin_b52", "b_deck_corridor", False), (101, "b_deck_corridor", "grand_staircase", True)]
    assert agent(run, walker).location.key == "grand_staircase"
    me = name_of(walker)
    assert memories(run, in_cabin, kind="seen") == [f"{me} leaves toward the B Deck Corridor."]
    assert memories(run, corridor_named, kind="seen") == [
        f"{me} arrives from the Cabin B-52.", f"{me} leaves toward the Grand Staircase."]
    assert memories(run, corridor_unknown, kind="seen") == [
        "someone (unknown) arrives from the Cabin B-52.", "someone (unknown) leaves toward the Grand Staircase."]
    assert memories(run, corridor_asleep) == []
    assert memories(run, staircase, kind="seen") == [f"{me} arrives from the B Deck Corridor."]
    assert memories(run, lounge) == []


def test_simultaneous_a_target_who_walked_off_first_is_no_longer_here():
    """Both decide on the tick-start room; the seeded order decides who resolves first. Over a few
    ticks both orders come up: the approach fails exactly when the leaver went first."""
    run = new_run(schedule=Run.SIMULTANEOUS)
    leaver, seeker = cast_of(2)
    stage(run, {leaver: {"room": "b_deck_corridor", "rung": 1}, seeker: {"room": "b_deck_corridor", "rung": 1}})
    corridor = room_ids()["b_deck_corridor"]
    gateway = ScriptedGateway({leaver: act("move", "Cabin B-52"), seeker: act("interact", name_of(leaver))})
    outcomes = set()
    for _ in range(8):
        tick = run.tick
        step(run, gateway)
        [shown] = people_shown(gateway.prompts("action", seeker)[-1])  # the room as the tick began
        assert shown.startswith(name_of(leaver))
        [move] = events(run, "move", tick=tick)
        call = LLMCall.objects.get(run=run, tick=tick, agent__persona__key=seeker)
        [turn] = [e for e in events(run, "interact", tick=tick) + events(run, "action_fail", tick=tick)]
        if move.seq < turn.seq:
            assert call.outcome == LLMCall.ACTION_FAIL and call.detail == f"{name_of(leaver)} is no longer here"
            assert memories(run, seeker, kind="action_fail", tick=tick) == [
                f"ACTION_FAIL: {name_of(leaver)} is no longer here. You lose a minute."]
        else:
            assert call.outcome == LLMCall.OK and turn.kind == "interact"
        outcomes.add(call.outcome)
        AgentState.objects.filter(run=run, persona__key=leaver).update(location_id=corridor, destination=None,
                                                                         busy_until_tick=run.tick)
        AgentState.objects.filter(run=run, persona__key=seeker).update(busy_until_tick=run.tick)
    assert outcomes == {LLMCall.OK, LLMCall.ACTION_FAIL}
