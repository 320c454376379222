"""The out-of-order rule (world/rules/dependency.py) on hand-built situations — over one tick, as
`bench ahead` clocks it, and over several, as the engine's schedule asks it (`reach`: may a step go?)
— and the ceiling it puts on an out-of-order schedule (voyage/bench/ahead.py) on hand-built traces."""
import random
from types import SimpleNamespace

import pytest
from django.core.management.base import CommandError

from voyage.bench.ahead import SAME_ROOM_UNSAFE, AgentTick, Near, TickTrace, _draws, _turns, clocks
from voyage.management.commands.bench import parse_lognormal
from world.rules.actions import Action, ActionFail
from world.rules import dependency
from world.rules.dependency import (Balls, Behind, answered, attrition_possible, barrier, exits_to, latest_within, reach,
                                   reaches, turn_of, within_reach)
from world.rules.tick_order import ATTRITION, CHECK, EACH, NEXT, PROMPT, REFLECT, RESOLVE, WAKE

FIRST = EACH[0].number

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


# --- the schedule's rule over several ticks (dependency.reach): when a step may go -----------------
BALLS = Balls(NEIGHBOURS)
EARLY, LATE = (b"\x00",), (b"\xff",)  # places in a tick: first and last of the seeded order


def behind(room, tick, step, place=EARLY, **state):
    return Behind(tick=tick, step=step, place=place, room=room, **state)


def act(kind, volume="normal"):
    """An answer, parsed: `kind` at `volume`, aimed at the galley."""
    return Action(kind, "galley", volume, "Hello." if kind == "communicate" else "", 3, "")


def may_go(key, rooms, *others, wakes=False):
    """The engine's question (Stretch._nobody_reaches, which finds the others by room): does no
    agent still behind `key` reach one of `rooms` with its steps before it?"""
    return not any(reach(o, key, BALLS, wakes) & set(rooms) for o in others)


def test_an_agent_with_k_resolutions_to_go_may_walk_k_exits_and_be_noticed_one_beyond():
    other = behind(1, 10, PROMPT)  # room 1 of the corridor 1-2-3-4-5-6, deciding at tick 10
    # one resolution before a resolution of tick 10 later in the order: room 2 at most
    assert reach(other, (10, RESOLVE, LATE), BALLS) == {1, 2}
    assert may_go((10, RESOLVE, LATE), {3}, other) and not may_go((10, RESOLVE, LATE), {2}, other)
    # ahead of it in the order, its resolution comes after: none before
    assert may_go((10, RESOLVE, (b"",)), {2}, behind(1, 10, PROMPT, place=LATE))
    # two resolutions (ticks 10 and 11) before a reflection of tick 11: two exits and one beyond
    assert reach(other, (11, REFLECT, ()), BALLS) == {1, 2, 3, 7}
    assert may_go((11, REFLECT, ()), {4}, other) and not may_go((11, REFLECT, ()), {3}, other)
    # a prompt of tick 11 shows the tick as it began: one resolution (tick 10's) before it
    assert not may_go((11, PROMPT, LATE), {2}, other) and may_go((11, PROMPT, LATE), {3}, other)


def test_once_its_answer_is_in_only_what_the_answer_touches_counts():
    def at_resolution(action):
        return behind(1, 10, RESOLVE, turn=lambda: answered(1, NEIGHBOURS, action))

    key = (10, ATTRITION, LATE)
    assert may_go(key, {2}, at_resolution(act("communicate")))
    assert may_go(key, {2}, at_resolution(act("interact")))
    assert not may_go(key, {2}, at_resolution(act("move")))  # it may walk into room 2
    assert not may_go(key, {2}, at_resolution(act("communicate", "shout")))  # it may be heard there
    assert may_go(key, {3}, at_resolution(act("move")), at_resolution(act("communicate", "shout")))
    assert may_go(key, {2}, at_resolution(ActionFail("the model did not answer")))
    # a tick later it may walk on, from where it stands
    assert reach(at_resolution(ActionFail("")), (11, ATTRITION, LATE), BALLS) == {1, 2}


def test_the_engines_rule_over_one_tick_is_the_benchmarks_turn():
    """`bench ahead` clocks each tick with turn_of; the engine's reach over that tick's resolution
    gives the same rooms: its pending turn while the call is out, its answered turn once it is in."""
    for room in NEIGHBOURS:
        assert reach(behind(room, 10, PROMPT), (10, ATTRITION, LATE), BALLS) == pending(room).touches
        move = act("move")
        known = behind(room, 10, RESOLVE, turn=lambda r=room: answered(r, NEIGHBOURS, move))
        assert reach(known, (10, ATTRITION, LATE), BALLS) == answered(room, NEIGHBOURS, move).touches


def test_steps_that_touch_only_their_own_agent_wait_only_for_a_resolution_or_a_wake():
    past = behind(1, 10, ATTRITION)  # it has resolved tick 10; nothing of it touches anyone before tick 11
    assert may_go((10, REFLECT, ()), {1}, past)
    assert not may_go((11, REFLECT, ()), {1}, past)  # its resolution of tick 11 comes first
    # a sleeper past its wake resolves nothing, but a resolution in its room changes what it will read
    sleeper = behind(3, 10, CHECK, asleep=True, busy_until=30)
    assert may_go((10, PROMPT, LATE), {3}, sleeper) and not may_go((10, RESOLVE, LATE), {3}, sleeper)
    # before its wake: a prompt in its room waits to see whether it wakes (it shows who is awake)
    waking = behind(3, 10, WAKE, asleep=True, busy_until=10)
    assert not may_go((10, PROMPT, LATE), {3}, waking) and may_go((10, PROMPT, LATE), {2}, waking)
    # the dead touch nothing, but their last steps still precede a resolution in their room
    dead = behind(5, 10, PROMPT, alive=False)
    assert may_go((12, REFLECT, ()), {5}, dead) and not may_go((10, RESOLVE, LATE), {5}, dead)


def test_what_is_clear_stays_clear_as_those_behind_move_on():
    """The engine asks once for several steps (Cursor.clear_to): sound only if an agent behind, taking
    its next step (walking one exit at a resolution, within its answer; waking; falling asleep),
    never reaches further than it could before. Seeded random situations on the corridor."""
    rng = random.Random(11)
    for o, key, wakes, turn in _situations(rng, 3000):
        room, asleep, busy = o.room, o.asleep, o.busy_until
        before = reach(o, key, BALLS, wakes)
        # its next step
        nxt_tick, nxt_step = (o.tick, NEXT[o.step]) if o.step in NEXT else (o.tick + 1, FIRST)
        nxt_room, nxt_asleep, nxt_busy = room, asleep, busy
        if o.step == WAKE and asleep and busy <= o.tick:
            nxt_asleep = False
        if o.step == RESOLVE and not (asleep and busy > o.tick):
            rooms = turn.rooms if turn else BALLS.of(room, 1)
            nxt_room = rng.choice(sorted(rooms))
            if rng.random() < 0.2:
                nxt_asleep, nxt_busy = True, o.tick + rng.randint(1, 5)
        after = Behind(nxt_tick, nxt_step, o.place, nxt_room, True, nxt_asleep, nxt_busy)
        if (after.tick, after.step, after.place if after.tick == key[0] else ()) >= key:
            continue  # past the key: no longer behind it
        assert reach(after, key, BALLS, wakes) <= before, (o, after, key, wakes)


def _situations(rng: random.Random, n: int):
    """`n` seeded random situations on the corridor: an agent behind a step's key (o), the key, whether
    the step wakes its agent, and the agent's answered turn (if its answer is in)."""
    steps = [s.number for s in EACH]
    for _ in range(n):
        room, tick = rng.choice(list(NEIGHBOURS)), rng.randint(10, 12)
        step, asleep = rng.choice(steps), rng.random() < 0.3
        busy = rng.randint(8, 14) if asleep else 0
        action = rng.choice([ActionFail(""), act("move"), act("communicate", "shout"), act("interact")])
        turn = answered(room, NEIGHBOURS, action) if step == RESOLVE and rng.random() < 0.5 and not asleep else None
        o = behind(room, tick, step, place=(bytes([rng.randint(0, 9)]),), asleep=asleep, busy_until=busy,
                   turn=(lambda t=turn: t) if turn else None)
        key = (rng.randint(tick, 14), rng.choice(steps), (bytes([rng.randint(0, 9)]),))
        if (o.tick, o.step, o.place if o.tick == key[0] else ()) < key:
            yield o, key, key[1] == WAKE and rng.random() < 0.5, turn


def test_an_agent_reaches_no_further_than_one_exit_beyond_its_ticks_to_go():
    """The engine looks for those in the way nearest first, and from `exits` away only at those in a
    tick early enough to walk there (Stretch._nobody_reaches): sound only if no reach goes further.
    Every room an agent's reach touches is within latest_within of its tick."""
    rng, seen = random.Random(12), 0
    for o, key, wakes, _ in _situations(rng, 3000):
        for room in reach(o, key, BALLS, wakes):
            exits = exits_to(BALLS.shells(frozenset((o.room,)), 6), room)
            assert o.tick <= latest_within(key[0], exits), (o, key, room, exits)
            seen += exits > 0
    assert seen > 1000  # reaches past its own room were among them
    assert latest_within(10, 1) == 10 and latest_within(10, 2) == 9  # one exit in its tick, two from the tick before


def test_whether_a_reach_meets_rooms_is_told_by_their_distance_alone():
    """The engine's scan knows how far each agent it looks at stands from the rooms asked about (the
    ring it found it in) and asks `reaches`, which builds no rooms: the same answer as `reach`'s rooms
    met, over seeded situations and sets of rooms on the corridor."""
    rng, met, beyond = random.Random(13), 0, 0
    for o, key, wakes, _ in _situations(rng, 3000):
        rooms = frozenset(rng.sample(sorted(NEIGHBOURS), rng.randint(1, 3)))
        expected = bool(reach(o, key, BALLS, wakes) & rooms)
        # the rings as far as the engine looks: no further than one exit beyond the ticks to go of the
        # slowest, and this agent is at most as slow
        exits = exits_to(BALLS.shells(rooms, key[0] - o.tick + 1), o.room)
        if exits is None:  # beyond them: it reaches none of the rooms
            assert not expected, (o, key, rooms, wakes)
            beyond += 1
            continue
        assert reaches(o, key, rooms, exits, wakes) == expected, (o, key, rooms, exits, wakes)
        met += expected
    assert 500 < met < 2500 and beyond > 100  # every answer was among them


def test_the_shells_of_rooms_are_their_balls_ring_by_ring(monkeypatch):
    rooms = frozenset((1, 7))
    shells = BALLS.shells(rooms, 3)
    assert shells == (rooms, frozenset((2,)), frozenset((3,)), frozenset((4,)))
    for radius in range(4):
        ball = BALLS.of(1, radius) | BALLS.of(7, radius)
        assert frozenset().union(*shells[:radius + 1]) == ball
    assert sum(len(s) for s in shells) == len(frozenset().union(*shells))  # each room once
    assert BALLS.shells(rooms, 3) is shells  # computed once
    assert [exits_to(shells, room) for room in (7, 2, 4, 5)] == [0, 1, 3, None]
    monkeypatch.setattr(dependency, "SHELLS_KEPT", 5)
    few = Balls(NEIGHBOURS)
    for room in NEIGHBOURS:  # more than it keeps: the cache starts again, and the answers stay the same
        for radius in range(4):
            with_room = frozenset((room,))
            assert few.shells(with_room, radius) == BALLS.shells(with_room, radius)
            assert len(few._shells) <= 5
    assert few._shells  # what it keeps since it started again
