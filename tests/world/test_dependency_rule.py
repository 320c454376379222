"""The out-of-order rule (world/rules/dependency.py) on hand-built situations, and the ceiling it puts
on an out-of-order schedule (voyage/bench/ahead.py) on hand-built traces."""
from types import SimpleNamespace

import pytest
from django.core.management.base import CommandError

from voyage.bench.ahead import SAME_ROOM_UNSAFE, AgentTick, Near, TickTrace, _draws, _turns, clocks
from voyage.management.commands.bench import parse_lognormal
from world.rules.dependency import attrition_possible, barrier, turn_of, within_reach

# A corridor of rooms 1-2-3-4-5-6, and a cabin 7 off room 2.
NEIGHBOURS = {1: [2], 2: [1, 3, 7], 3: [2, 4], 4: [3, 5], 5: [4, 6], 6: [5], 7: [2]}


def settled(room, walk=(), shout_into=()):
    return turn_of(room, NEIGHBOURS, pending=False, walk=walk, shout_into=shout_into)


def pending(room):
    return turn_of(room, NEIGHBOURS, pending=True)


def test_two_rooms_far_apart_run_ahead():
    assert not within_reach(settled(1), pending(6))
    assert not within_reach(pending(1), pending(5))


def test_a_room_next_door_waits_while_its_call_is_out():
    # the one next door may yet walk in: wait for its answer
    assert within_reach(settled(1), pending(2))
    # once its answer is in and it stayed and did not shout, nothing of it reaches room 1
    assert not within_reach(settled(1), settled(2))
    # two exits away it can reach room 2 at most, where nobody of room 1 stands
    assert not within_reach(settled(1), pending(3))
    # unless the one in room 1 walked into room 2 this tick
    assert within_reach(settled(1, walk=(2,)), pending(3))


def test_a_shout_heard_next_door_waits():
    assert within_reach(settled(1), settled(2, shout_into=(1, 3, 7)))
    assert not within_reach(settled(1), settled(2, shout_into=(3,)))  # room 1 noisy: the shout stops at its door
    assert not within_reach(settled(7), settled(3, shout_into=(2, 4)))


def test_a_move_into_the_room_waits():
    assert within_reach(settled(1), settled(2, walk=(1,)))
    assert within_reach(settled(2), settled(1, walk=(2,)))  # leaving is seen too
    assert not within_reach(settled(1), settled(3, walk=(4,)))


def test_steps_for_everyone_are_barriers():
    plan = SimpleNamespace(spouse_collision=False, wind_down=False, nightfall=False, bulletin=False)
    assert barrier(plan, overnight=False, interventions_due=False, attrition_due=False) is None
    assert barrier(plan, overnight=True, interventions_due=False, attrition_due=False) == "overnight"
    assert barrier(plan, overnight=False, interventions_due=True, attrition_due=False) == "interventions"
    assert barrier(plan, overnight=False, interventions_due=False, attrition_due=True) == "attrition rumour"
    for step in ("spouse_collision", "wind_down", "nightfall", "bulletin"):
        assert barrier(SimpleNamespace(**{**vars(plan), step: True}), overnight=False, interventions_due=False,
                       attrition_due=False)
    assert attrition_possible(38, 2, 40) and not attrition_possible(37, 2, 40)


def _trace(rooms: dict[int, int], ticks: int) -> list[TickTrace]:
    return [TickTrace(tick=k, barrier=None,
                      agents={aid: AgentTick(room=room, order=n, pending=True, key=f"agent_{aid}")
                              for n, (aid, room) in enumerate(rooms.items())})
            for k in range(ticks)]


def test_agents_out_of_reach_finish_when_their_own_calls_do():
    traced = _trace({10: 1, 11: 6}, ticks=40)  # enough ticks that the gain is not one lucky draw
    c = clocks(traced, NEIGHBOURS, threshold=40, run_ahead=20, median_s=1.0, sigma=0.6)
    draws = [_draws(t, 1912, 1.0, 0.6)[0] for t in traced]
    assert c.lockstep_s == pytest.approx(sum(max(d.values()) for d in draws))
    # the first tick is taken together; then each goes at the pace of its own calls
    assert c.out_of_order_s == pytest.approx(max(draws[0].values()) + max(sum(d[a] for d in draws[1:]) for a in (10, 11)))
    assert c.lockstep_s / c.out_of_order_s > 1.05
    assert clocks(traced, NEIGHBOURS, 40, run_ahead=1).out_of_order_s >= c.out_of_order_s - 1e-9  # a bound only slows


def test_agents_in_reach_of_each_other_gain_nothing():
    traced = _trace({10: 1, 11: 2, 12: 1}, ticks=12)
    c = clocks(traced, NEIGHBOURS, threshold=40, run_ahead=8)
    assert c.out_of_order_s == pytest.approx(c.lockstep_s)


def test_a_barrier_tick_waits_for_everyone():
    traced = _trace({10: 1, 11: 6}, ticks=12)
    free = clocks(traced, NEIGHBOURS, 40, run_ahead=20).out_of_order_s
    traced[6].barrier = "wind-down cue"
    assert clocks(traced, NEIGHBOURS, 40, run_ahead=20).out_of_order_s > free


def test_the_unsafe_reference_counts_only_people_in_the_same_room():
    traced = _trace({10: 1, 11: 2}, ticks=10)  # next door: in reach by the rule, not by the reference
    safe = clocks(traced, NEIGHBOURS, 40, run_ahead=8)
    unsafe = clocks(traced, NEIGHBOURS, 40, run_ahead=8, mode=SAME_ROOM_UNSAFE)
    assert safe.out_of_order_s == pytest.approx(safe.lockstep_s)
    assert unsafe.out_of_order_s < safe.out_of_order_s


def test_the_latency_option_names_what_is_wrong():
    assert parse_lognormal("lognormal:1000:0.6") == (1000.0, 0.6)
    for bad in ("normal:1000:0.6", "lognormal:1000", "lognormal:-5:0.6", "lognormal:a:b"):
        with pytest.raises(CommandError, match="--latency"):
            parse_lognormal(bad)


@pytest.mark.django_db
def test_a_traced_run_matches_what_the_run_recorded():
    from voyage.bench.ahead import inner, trace
    from voyage.models import LLMCall, Run

    traced, neighbours, threshold = trace("edelweiss", 6)
    run = Run.objects.latest("id")
    assert [t.tick for t in traced] == list(range(6))
    assert traced[1].barrier == "spouse collision" and traced[2].barrier is None
    for t in traced:
        calls = set(LLMCall.objects.filter(run=run, tick=t.tick, purpose="action").values_list("agent_id", flat=True))
        assert {aid for aid, at in t.agents.items() if at.pending} == calls
    assert set(neighbours) == set(run.scenario.rooms.values_list("id", flat=True))
    figures = inner("edelweiss", 6, 1000, 0.6)
    assert figures["ticks"] == 6 and set(figures["ceiling"]) == {"run_ahead_1", "run_ahead_2", "run_ahead_4", "run_ahead_8",
                                                                "same_room_only_unsafe_run_ahead_8"}
    assert all(c["ratio"] >= 1 for c in figures["ceiling"].values())


def test_the_clocks_look_at_everyone_who_could_be_in_reach():
    """Near (the clocks' room index) finds every agent whose possible turn, or known turn, is in reach of
    a turn: those it leaves out are clear in either mode, so the clocks equal the all-pairs ones."""
    import random

    rng = random.Random(7)
    for _ in range(200):
        agents = {}
        for aid in range(rng.randint(1, 8)):
            room = rng.choice(list(NEIGHBOURS))
            walk = (rng.choice(NEIGHBOURS[room]),) if rng.random() < 0.3 else ()
            shout = tuple(NEIGHBOURS[room]) if rng.random() < 0.2 else ()
            agents[aid] = AgentTick(room=room, order=aid, pending=rng.random() < 0.7, walk=walk, shout_into=shout)
        turns = _turns(TickTrace(tick=1, barrier=None, agents=agents), NEIGHBOURS)
        near = Near(turns)
        for possible, known in turns.values():
            for mine in (possible, known):
                found = near.of(mine)
                assert {b for b, pair in turns.items() if within_reach(mine, pair[0]) or within_reach(mine, pair[1])
                        or mine.start == pair[1].start or mine.rooms & pair[1].rooms} <= found
