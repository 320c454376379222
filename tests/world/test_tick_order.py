"""The tick's steps, declared once (world/rules/tick_order.py): lock-step (voyage/engine/tick.py) and
the out-of-order schedule (voyage/engine/ahead.py) walk the same table, and the writer puts what
steps wrote, in any order, back in the table's. No database."""
import random
from types import SimpleNamespace

from voyage.engine import tick as lock_step
from voyage.engine.ahead import FIRST, Cursor, Stretch
from voyage.engine.writer import TickWriter
from world.rules.dependency import barrier
from world.rules.tick_order import (ATTRITION, DREAMS, EACH, EVERYONE, PROMPT, REFLECT, RESOLVE, TICK, WAKE,
                                    WIND_DOWN)
from world.time import TICKS_PER_DAY, is_overnight, plan_tick


def _world(tick: int, schedule: str = "simultaneous"):
    """As much of a run's world as run_tick reads before its steps (which the tests replace)."""
    run = SimpleNamespace(tick=tick, reflection_schedule=(15, 30, 45, 60), schedule=schedule,
                          SIMULTANEOUS="simultaneous", pk=1)
    return SimpleNamespace(run=run, memory=SimpleNamespace(ready=lambda tick, gateway: None))


def _lock_step_takes(monkeypatch, tick: int) -> list[int]:
    taken = []
    for number in lock_step.LOCK_STEP:
        monkeypatch.setitem(lock_step.LOCK_STEP, number, lambda t, n=number: taken.append(n))
    lock_step.run_tick(_world(tick), gateway=None)
    return taken


def test_each_schedule_has_what_every_step_of_the_table_does():
    assert list(lock_step.LOCK_STEP) == [s.number for s in TICK]
    stretch = Stretch(world=None, gateway=None, run_ahead=2, until=0, memory=None, due=set(), on_commit=None)
    assert set(stretch.steps) == {s.number for s in EACH}


def test_an_agent_out_of_order_walks_the_steps_lock_step_takes_for_everyone(monkeypatch):
    """Over a plain tick, a cursor's steps are lock-step's steps that each agent takes, in the same
    order; after the last it starts the next tick. Reordering a row of the table reorders both."""
    plan = plan_tick(40)
    taken = _lock_step_takes(monkeypatch, 40)
    assert taken == [s.number for s in TICK if s.fires_at(plan)]
    cursor, walked = Cursor(agent=None, tick=40), []
    while cursor.tick == 40:
        walked.append(cursor.step)
        cursor.on()
    assert walked == [n for n in taken if n in {s.number for s in EACH}]
    assert walked.index(PROMPT) < walked.index(RESOLVE) < walked.index(ATTRITION) < walked.index(REFLECT)
    assert (cursor.tick, cursor.step, cursor.key) == (41, FIRST, (41, WAKE, ()))


def test_lock_step_takes_a_step_for_everyone_only_at_its_tick(monkeypatch):
    wind_down = next(t for t in range(TICKS_PER_DAY) if plan_tick(t).wind_down)
    assert WIND_DOWN in _lock_step_takes(monkeypatch, wind_down)
    assert WIND_DOWN not in _lock_step_takes(monkeypatch, wind_down + 1)
    taken = _lock_step_takes(monkeypatch, 1)  # the spouse collision: first of all
    assert taken[0] == next(s.number for s in TICK if s.name == "spouse collision")


def test_a_tick_is_a_barrier_when_a_step_for_everyone_fires_at_it():
    """The out-of-order schedule never takes a step for everyone: each such tick is a barrier, and
    a step taken once that is not for everyone (the digest, log only) does not make one."""
    everyone = {s.name for s in TICK if s.touches == EVERYONE}
    assert everyone == {"spouse collision", "wind-down cue", "nightfall", "bulletin"}
    for t in range(2 * TICKS_PER_DAY):
        plan = plan_tick(t)
        why = barrier(plan, overnight=is_overnight(t), interventions_due=False, attrition_due=False)
        firing = [s.name for s in TICK if s.touches == EVERYONE and s.fires_at(plan)]
        if not is_overnight(t):
            assert why == (firing[0] if firing else None), t
    digest_only = next(t for t in range(1, 100) if plan_tick(t).digest and not is_overnight(t))
    assert barrier(plan_tick(digest_only), overnight=False, interventions_due=False, attrition_due=False) is None


def test_a_step_after_the_tick_increment_writes_with_the_new_tick():
    w = TickWriter(SimpleNamespace(), 40)
    assert w.at(WAKE, ("a",)).tick == 40 and w.at(ATTRITION, ("a",)).tick == 40
    assert w.at(REFLECT, 0, "ada").tick == 41 and w.at(DREAMS).tick == 41
    assert w.key == (DREAMS,)


def test_rows_written_out_of_order_commit_in_the_tables_order():
    """Steps of several agents write in any order (as out of order they do); the rows come back in
    lock-step's: by step, then by the agent's place in the tick."""
    w = TickWriter(SimpleNamespace(), 40)
    writes = [(step, place) for step in (WAKE, PROMPT, RESOLVE, ATTRITION) for place in ("a", "b", "c")]
    random.Random(3).shuffle(writes)
    for step, place in writes:
        w.at(step, place)
        w.others.append((step, place))
    assert w.others.in_order() == sorted(writes)
