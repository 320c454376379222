"""The out-of-order schedule (voyage/engine/ahead.py): whatever run_ahead, the transcript, the memory
and the calls are lock-step's, and agents do run ahead.

The offline policy and replay answer at once, and a run on them keeps to lock-step (nothing to
overlap); here their answers come back after short seeded latencies (voyage/bench/latent.py), so
that calls are out while others resolve, and answers arrive in an order of their own."""
import math
import random
import threading
import time
from collections import Counter, deque
from concurrent.futures import Future
from queue import SimpleQueue

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle import assert_same_calls, assert_same_memory, assert_same_transcript
from voyage.bench.fake_openai_server import FakeOpenAI
from voyage.bench.latent import Latent
from voyage.calls.factory import gateway_for
from voyage.engine import ahead, runner
from voyage.engine.ahead import Stretch
from voyage.engine.runner import advance, create_run
from voyage.gateway.base import Gateway
from voyage.gateway.openai_client import GatewayConfig, OpenAIGateway
from voyage.instruments.interventions import intervene
from voyage.management.model_options import replay_fields
from voyage.models import Event, ModelProfile, Run
from world.models import Scenario
from world.rules.tick_order import ATTRITION, REFLECT, TICK
from world.scenarios.files import data_yaml, import_yaml, scenario_data
from world.scenarios.grow import grow

pytestmark = pytest.mark.django_db


def _run(scenario: str, run_ahead: int, ticks: int, **params) -> Run:
    run = create_run(Scenario.objects.get(slug=scenario), seed=1912, schedule=Run.SIMULTANEOUS, target_ticks=ticks,
                     run_ahead=run_ahead, **params)
    return run


def slow(run: Run, median_s: float = 0.002):
    """The run's own gateway (offline, or replay), each answer after a latency seeded by its call."""
    return Latent(gateway_for(run), run.seed, median_s, 0.8)


def go(run: Run, ticks: int) -> Run:
    return advance(run, ticks, gateway=slow(run), memory_inline=True)


def assert_same_run(ahead: Run, lock: Run) -> None:
    assert_same_transcript(ahead, lock)
    assert_same_memory(ahead, lock)
    assert_same_calls(ahead, lock)
    seqs = list(Event.objects.filter(run=ahead).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(len(seqs)))


@pytest.mark.parametrize("scenario", ["1912", "edelweiss"])
def test_an_offline_day_out_of_order_is_the_lock_step_day(scenario):
    lock = advance(_run(scenario, 0, 480), 480, memory_inline=True)  # the offline policy, at once
    ahead = go(_run(scenario, 3, 480), 480)
    assert_same_run(ahead, lock)
    ahead.refresh_from_db()
    lock.refresh_from_db()
    assert lock.leads == {}  # lock-step never leads
    assert 1 <= ahead.leads["max"] <= 3, "some agent ran ahead, never more than run_ahead ticks"
    assert ahead.leads["n"] > 0 and ahead.leads["sum"] > 0


def test_a_replay_out_of_order_repeats_the_recorded_run():
    recorded = advance(_run("1912", 0, 60, malformed_rate=0.1), 60, memory_inline=True)
    replay = create_run(**{**replay_fields(recorded), "run_ahead": 4})
    assert gateway_for(replay).answers_at_once and replay.replay_of == recorded  # replay: at once, unless slowed
    go(replay, 60)
    assert_same_transcript(replay, recorded)
    replay.refresh_from_db()
    assert replay.leads["max"] >= 1


def test_against_a_server_whose_latencies_are_seeded_by_request():
    """Answers come back in an order of their own (lognormal latencies, seeded by each request's
    content); out of order or not, the same transcript."""
    with FakeOpenAI(lognormal=(15, 0.8), seed=3) as server:
        profile = ModelProfile.objects.create(name="fake", kind=ModelProfile.OPENAI, base_url=server.base_url,
                                              model="fake-model", timeout_s=5, retries=1, concurrency=64)
        runs = []
        for run_ahead in (0, 2):
            run = _run("1912", run_ahead, 40, profile=profile)
            gateway = OpenAIGateway(GatewayConfig.from_profile(profile), backoff_base_s=0.005, backoff_cap_s=0.02)
            runs.append(advance(run, 40, gateway=gateway))
    lock, ahead = runs
    assert_same_transcript(ahead, lock)
    assert_same_calls(ahead, lock)
    ahead.refresh_from_db()
    assert ahead.leads["max"] >= 1


def test_an_intervention_scheduled_ahead_lands_at_its_tick():
    """Agents that run ahead stop at the tick where an intervention waits; it lands there, and the
    run goes on to lock-step's transcript."""
    runs = []
    for run_ahead in (0, 4):
        run = _run("edelweiss", run_ahead, 90)
        intervene(run, "room_event", "A bell rings through the house.", tick=45, room="kitchen", made_by="tester")
        runs.append(go(run, 90))
    lock, ahead = runs
    assert_same_run(ahead, lock)
    landed = Event.objects.filter(run=ahead, text__contains="A bell rings").values_list("tick", flat=True)
    assert list(landed) and set(landed) == {45}
    ahead.refresh_from_db()
    assert ahead.leads["max"] >= 1


def test_a_budget_stops_out_of_order_at_a_committed_tick():
    """What ran ahead of the tick where the budget ran out is not kept: the run pauses with every
    committed tick whole, and resumes to lock-step's transcript."""
    lock = advance(_run("1912", 0, 60), 60, memory_inline=True)
    lock_budget = advance(_run("1912", 0, 60, budget_tokens=40_000), 60, memory_inline=True)
    ahead = _run("1912", 3, 60, budget_tokens=40_000)
    go(ahead, 60)
    ahead.refresh_from_db()
    assert ahead.state == Run.PAUSED and 0 < ahead.tick < 60
    assert ahead.tick == lock_budget.tick and ahead.pause_reason == lock_budget.pause_reason  # where lock-step stops
    stopped = ahead.tick
    assert not Event.objects.filter(run=ahead, tick__gte=stopped + 1).exists()
    Run.objects.filter(pk=ahead.pk).update(budget_tokens=None, state=Run.QUEUED, pause_reason="")
    ahead.refresh_from_db()
    go(ahead, 60)
    assert_same_transcript(ahead, lock)


def test_a_run_on_a_gateway_that_answers_at_once_keeps_to_lock_step():
    """Offline, nothing is ever out: out of order would only cost its bookkeeping. The run takes
    lock-step's path (no lead is recorded) and, as ever, lock-step's transcript."""
    run = advance(_run("edelweiss", 3, 60), 60, memory_inline=True)
    run.refresh_from_db()
    assert run.leads == {}
    assert_same_transcript(run, advance(_run("edelweiss", 0, 60), 60, memory_inline=True))


def _grown(agents: int) -> Scenario:
    """Edelweiss grown to `agents` people (world/scenarios/grow.py), imported as a file (once)."""
    if (grown := Scenario.objects.filter(slug=f"edelweiss-grown-{agents}").first()) is not None:
        return grown
    return import_yaml(data_yaml(grow(scenario_data(Scenario.objects.get(slug="edelweiss")), agents)))


def test_a_world_grown_to_256_out_of_order_is_the_lock_step_world():
    """Many rooms, many people, most of them out of each other's reach: the schedule's bookkeeping
    per room and per agent (who waits on whom) keeps lock-step's transcript, memory and calls."""
    scenario = _grown(256)
    lock = advance(create_run(scenario, seed=1912, schedule=Run.SIMULTANEOUS, target_ticks=10, run_ahead=0),
                   10, memory_inline=True)
    ahead = go(create_run(scenario, seed=1912, schedule=Run.SIMULTANEOUS, target_ticks=10, run_ahead=2), 10)
    assert_same_run(ahead, lock)
    ahead.refresh_from_db()
    assert ahead.leads["max"] >= 1


class Held(Gateway):
    """The offline answers, each held back (while `holding`) until the schedule asks for the next
    one to come back: the calls return one at a time, oldest first, in this thread."""
    answers_at_once = False

    def __init__(self, inner: Gateway):
        self.inner, self.name = inner, f"{inner.name} (held)"
        self.takes_schema, self.schema_dialect = inner.takes_schema, inner.schema_dialect
        self.pending: deque = deque()
        self.holding = False

    def action_shape(self, agent_key):
        return self.inner.action_shape(agent_key)

    def start(self, request):
        future, answer = Future(), self.inner.complete(request)
        if self.holding:
            self.pending.append((future, answer))
        else:
            future.set_result(answer)
        return future

    def complete(self, request):
        return self.inner.complete(request)


class OneAtATime(Stretch):
    """The schedule with its calls returning one by one: what it did between two returns is the
    work one event cost (`per_event`: cursor examinations and reach computations)."""
    per_event: list
    sweeps: int
    work_done: Counter  # what the schedule did, over every stretch of the run

    def run(self) -> int:
        self.gateway.holding, self.seen = True, 0
        try:
            return super().run()
        finally:
            self.gateway.holding = False
            OneAtATime.sweeps += self.work["sweeps"]
            OneAtATime.work_done.update(self.work)

    def _await(self):
        done = self.work["examined"] + self.work["reach"]
        OneAtATime.per_event.append(done - self.seen)
        self.seen = done
        future, answer = self.gateway.pending.popleft()
        future.set_result(answer)  # its callback hands the cursor over
        return self.arrived.get_nowait()


def _work_per_event(monkeypatch, agents: int, ticks: int = 8, schedule: type = OneAtATime) -> list[int]:
    _held_run(monkeypatch, agents, ticks, schedule)
    return OneAtATime.per_event


def _held_run(monkeypatch, agents: int, ticks: int, schedule: type) -> Run:
    OneAtATime.per_event, OneAtATime.sweeps, OneAtATime.work_done = [], 0, Counter()
    monkeypatch.setattr(runner, "Stretch", schedule)
    run = create_run(_grown(agents), seed=1912, schedule=Run.SIMULTANEOUS, target_ticks=ticks, run_ahead=2)
    advance(run, ticks, gateway=Held(gateway_for(run)), memory_inline=True)
    assert OneAtATime.sweeps == 0, "every cursor that waited was woken by what it waited for"
    run.refresh_from_db()
    assert run.tick == ticks and run.leads["max"] >= 1
    return run


class LookingAtEveryoneNear(OneAtATime):
    """The schedule without its two shortcuts in the clear check: every check scans everyone near
    (the cursor found in the way last time is not asked first), at every distance."""

    def _nobody_reaches(self, c, key, rooms, wakes):
        c.blocker = None
        return super()._nobody_reaches(c, key, rooms, wakes)


def test_the_clear_check_asks_the_one_in_the_way_first_and_looks_no_further_than_reach_goes(monkeypatch):
    """The same run, calls coming back one by one in the same order, with and without the shortcuts:
    the same transcript, memory and calls. Asking first the cursor last found in the way (often still
    there) saves scans of the rooms near; looking, from k exits away, only at those far enough behind
    in ticks to walk them saves reaches (here few, the leads being short: 40 % at 256 people over 40
    ticks with a second's latency, docs/out-of-order.md)."""
    quick = _held_run(monkeypatch, 128, 8, OneAtATime)
    shortcut = OneAtATime.work_done
    scanning = _held_run(monkeypatch, 128, 8, LookingAtEveryoneNear)
    assert_same_run(quick, scanning)
    assert shortcut["in the way again"] > 0 and OneAtATime.work_done["in the way again"] == 0
    assert shortcut["clear"] < 0.85 * OneAtATime.work_done["clear"], (shortcut, OneAtATime.work_done)
    monkeypatch.setattr(ahead, "latest_within", lambda tick, exits: tick + 1)  # everyone near, at any distance
    everyone = _held_run(monkeypatch, 128, 8, OneAtATime)
    assert_same_run(quick, everyone)
    assert shortcut["reach"] < OneAtATime.work_done["reach"], (shortcut, OneAtATime.work_done)


class AskingEachOnItsOwn(OneAtATime):
    """The schedule without the attrition step's and the reflections' shortcuts: every agent's
    attrition asks whether its room is clear, in any room, and each agent asks on its own whether its
    room is clear up to the tick's reflections."""

    def _attrition(self, c):
        a = c.agent
        if a.alive and not self._clear(c, (c.tick, ATTRITION, c.place), {a.location_id}, further=(c.tick, REFLECT, ())):
            return False
        return super()._attrition(c)

    def _reflect_clear(self, c):
        return self._clear(c, (c.tick, REFLECT, ()), {c.agent.location_id})


def test_attrition_outside_a_private_room_and_a_room_clear_to_the_reflections_are_asked_once(monkeypatch):
    """Outside a private room an agent is never alone, whoever comes or goes, so its attrition step
    asks nobody; and whether a room is clear up to the tick's reflections is the same question for
    everyone in it, asked once. The same run, calls coming back one by one in the same order, with
    every agent asking on its own: the same transcript, memory and calls, and more checks."""
    _shortcut_against(monkeypatch, OneAtATime, AskingEachOnItsOwn, taken="clear shared", saves="clear")


def _shortcut_against(monkeypatch, with_it: type, without: type, *, taken: str, saves: str) -> None:
    """The same run of 128 people, calls coming back one by one in the same order, with a shortcut
    and without it: the same transcript, memory and calls; the shortcut taken (the work counted as
    `taken`) and saving work (less of `saves`)."""
    run = _held_run(monkeypatch, 128, 8, with_it)
    work = OneAtATime.work_done
    plain = _held_run(monkeypatch, 128, 8, without)
    assert_same_run(run, plain)
    assert work[taken] > 0 and OneAtATime.work_done[taken] == 0
    assert work[saves] < OneAtATime.work_done[saves], (work, OneAtATime.work_done)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.sampled_from([s.number for s in TICK]),
                          st.one_of(st.just(()), st.tuples(st.sampled_from([b"\x00" * 8, b"\x00" * 7 + b"\x01",
                                                                              b"\x7f" + b"\x00" * 7, b"\xff" * 8]),
                                                           st.sampled_from(["ann", "bea", "cal", "dot"])))),
                min_size=2, max_size=12))
def test_a_keys_rank_keeps_the_keys_order(keys):
    """Ranks (numbers the heap and the scan compare) order keys as the keys (tick, step, place) order,
    places with the same bytes of hash (a collision) by persona key, and no place before any."""
    number = {p: n for n, p in enumerate(sorted(["ann", "bea", "cal", "dot"]))}

    def rank(key):
        tick, step, place = key
        return ahead.rank(tick, step, ahead.place_number(place), number[place[1]] if place else 0)

    assert sorted(keys) == sorted(keys, key=rank)
    assert all((rank(a) == rank(b)) == (a == b) for a in keys for b in keys)


class CheckingTheEarliest(OneAtATime):
    """The schedule checking, after every step, that its index of the earliest tick in each room is
    the one its cursors give: a room for each cursor not done, where its agent stands now."""

    def _stepped(self, c):
        super()._stepped(c)
        earliest: dict[int, int] = {}
        for o in self.cursors:
            if not o.done:
                room = o.agent.location_id
                earliest[room] = min(o.tick, earliest.get(room, o.tick))
        assert self.earliest.of == earliest, (c.agent.persona.key, c.key)


def test_the_scan_skips_the_rooms_whose_people_are_all_too_far_ahead(monkeypatch):
    """From k exits away only those k - 1 ticks behind can reach a step (`latest_within`); the rooms
    where everyone is further on in ticks are passed over whole, by the earliest tick each holds
    (ahead.Earliest), kept right through moves, deaths and new ticks. The same run with that index
    ignored looks at every agent in every room near: the same transcript, memory and calls, and it
    looks at more people (here, the calls coming back one by one and the leads short, 16 % more; at
    2,048 people with a second's latency, 86 % more: docs/out-of-order.md)."""
    indexed = _held_run(monkeypatch, 128, 8, CheckingTheEarliest)
    looked = OneAtATime.work_done["looked"]
    monkeypatch.setattr(ahead, "NOBODY", -math.inf)  # a room with nobody, as one with everybody
    monkeypatch.setattr(ahead.Earliest, "put", lambda self, c: None)  # no room is known to be ahead
    everyone = _held_run(monkeypatch, 128, 8, OneAtATime)
    assert_same_run(indexed, everyone)
    assert 0 < looked < 0.9 * OneAtATime.work_done["looked"], (looked, OneAtATime.work_done["looked"])


class CheckingTheKept(OneAtATime):
    """The schedule checking, each time it keeps a cursor waiting on the one in its way (that one took
    a step, or its answer came, or its agent changed), that a scan of everyone near afresh would find
    the step still held up."""

    def _still_in_way(self, o, c, same_reach=False):
        kept = super()._still_in_way(o, c, same_reach)
        if kept:
            key, _, rooms, wakes, _ = c.asking
            saved = c.blocker, c.asking, self.why, self.work.copy()
            c.blocker = None
            assert not self._nobody_reaches(c, key, rooms, wakes), (c.agent.persona.key, key, o.agent.persona.key)
            c.blocker, c.asking, self.why, self.work = saved
        return kept


class WakingEveryWaiter(OneAtATime):
    """The schedule waking all those waiting on a cursor at each of its events, as it did before."""

    def _still_in_way(self, o, c, same_reach=False):
        return False


def test_those_still_held_up_by_the_one_in_their_way_are_not_woken(monkeypatch):
    """A cursor waits on the one found in its way; when that one takes a step, or its answer comes, or
    its agent changes, what it may reach is asked again, and those it still holds up are not woken to
    look again (each would scan, find it first, and wait on it again). Each one kept is checked
    against a scan of everyone near afresh; the same run waking them all has the same transcript,
    memory and calls, and looks at cursors more often."""
    _shortcut_against(monkeypatch, CheckingTheKept, WakingEveryWaiter, taken="kept waiting", saves="examined")


def test_the_earliest_tick_of_each_room_follows_its_cursors():
    """ahead.Earliest on hand-made cursors: a new tick, a move, a death past its tick."""
    class Agent:
        def __init__(self, room):
            self.location_id = room

    a, b = ahead.Cursor(Agent(1), 4), ahead.Cursor(Agent(1), 5)
    earliest = ahead.Earliest()
    for c in (a, b):
        earliest.put(c)
    assert earliest.of == {1: 4}
    a.at(ahead.FIRST, tick=5)  # a starts tick 5
    earliest.put(a)
    assert earliest.of == {1: 5}
    b.agent.location_id = 2
    earliest.put(b)
    assert earliest.of == {1: 5, 2: 5}
    a.done = True
    earliest.put(a)
    assert earliest.of == {2: 5}
    earliest.put(a)  # again: counted once
    assert earliest.of == {2: 5}


def test_the_work_of_one_event_does_not_grow_with_the_world(monkeypatch):
    """A call coming back lets its agent go on, and those it stood in the way of: the schedule looks
    at them, not at everyone. From 64 people to 512 (8 times), the cursors examined and the reach
    computed per call that comes back stay about the same; a sweep over everyone per event would
    grow 8 times."""
    small, large = _work_per_event(monkeypatch, 64), _work_per_event(monkeypatch, 512)
    assert len(large) > 6 * len(small)  # the calls: about one per agent and tick
    mean_small, mean_large = sum(small) / len(small), sum(large) / len(large)
    assert mean_large < 2 * mean_small, (mean_small, mean_large)
    assert sorted(large)[len(large) // 2] <= 2 * sorted(small)[len(small) // 2] + 2


def test_the_returns_gather_for_a_twentieth_of_a_calls_median_latency():
    """Waking for each return cost the schedule's thread CPU: it lets them gather for GATHER of the
    median latency of the calls that came back (their geometric mean), then takes what came, and
    blocks only if nothing did."""
    stretch = Stretch.__new__(Stretch)
    stretch.took, stretch.log_latency, stretch.work, stretch.arrived = deque(), None, Counter(), SimpleQueue()
    assert stretch._gather() == 0.0  # nothing has come back yet: no pause
    rng = random.Random(3)
    stretch.took.extend(rng.lognormvariate(math.log(0.4), 0.6) for _ in range(400))
    assert stretch._gather() == pytest.approx(ahead.GATHER * 0.4, rel=0.25)  # the median's share, not the mean's
    assert not stretch.took  # each latency read once
    stretch.took.extend([0.02] * 400)  # the model got faster: the pause follows
    assert stretch._gather() == pytest.approx(ahead.GATHER * 0.02, rel=0.05)
    stretch.took.extend([1.0] * 400)
    threading.Timer(0.01, stretch.arrived.put, ("came while it waited",)).start()
    began = time.monotonic()
    assert stretch._await() == "came while it waited"
    assert ahead.GATHER * 1.0 - 0.005 <= time.monotonic() - began < 1.0  # the pause, and no more waiting
    assert stretch.work == {"gathered": 1}
    threading.Timer(0.12, stretch.arrived.put, ("came after",)).start()
    assert stretch._await() == "came after" and stretch.work == {"gathered": 2, "blocked": 1}
