"""Time travel: the ship after tick N, folded from the event log (voyage/records/timetravel.py), is
exactly what agent_state holds — at a run's last tick, and for a run stopped at tick N."""
import pytest

from voyage.engine.runner import advance, create_run
from voyage.models import Run
from voyage.records.timetravel import AgentAt, LoggedEvent, committed_as, ship_after
from voyage.web.overview import cast_of, ship_now, ship_then
from world.models import Scenario

LONG, SEED = 40, 3
STOPS = (1, 2, 17)


# --- the fold, on plain data -----------------------------------------------------------------
def test_an_agent_starts_asleep_at_home_and_follows_its_events():
    homes = {"ann": "cabin", "bob": "cabin"}
    events = [
        LoggedEvent(0, "wake", "ann", "cabin", {}),
        LoggedEvent(0, "move", "ann", "corridor", {"from": "cabin", "to": "deck", "arrived": False}),
        LoggedEvent(1, "move", "ann", "deck", {"arrived": True}),
        LoggedEvent(1, "rung", "ann", "deck", {"rung": 1}),
        LoggedEvent(2, "wake", "bob", "cabin", {}),
        LoggedEvent(2, "death", "bob", "cabin", {"killer": "ann"}),
    ]
    assert ship_after(homes, events, 0) == {"ann": AgentAt("cabin"), "bob": AgentAt("cabin")}
    assert ship_after(homes, events, 1)["ann"] == AgentAt("corridor", asleep=False)
    assert ship_after(homes, events, 2)["ann"] == AgentAt("deck", asleep=False, rung=1)
    assert ship_after(homes, events, 3)["bob"] == AgentAt("cabin", asleep=False, alive=False)


def test_nightfall_belongs_to_the_tick_it_is_numbered_with_and_spares_the_dead():
    # Nightfall is written after the tick increment: numbered 319, it is part of the commit of
    # tick 319, while an action numbered 318 is part of that same commit.
    assert committed_as(319, "nightfall") == 319 and committed_as(318, "move") == 319
    homes = {"ann": "deck", "bob": "deck"}
    events = [LoggedEvent(0, "wake", "ann", "deck", {}), LoggedEvent(0, "wake", "bob", "deck", {}),
              LoggedEvent(5, "death", "bob", "deck", {}), LoggedEvent(8, "nightfall", None, None, {}),
              LoggedEvent(8, "move", "ann", "cabin", {})]  # the next tick's action, numbered 8 too
    at_8 = ship_after(homes, events, 8)
    assert at_8 == {"ann": AgentAt("deck", asleep=True), "bob": AgentAt("deck", asleep=False, alive=False)}
    assert ship_after(homes, events, 9)["ann"].room == "cabin"


# --- against real runs ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def runs(django_db_setup, django_db_blocker):
    """A 40-tick offline run, and runs with the same seed stopped at ticks 1, 2 and 17."""
    with django_db_blocker.unblock():
        scenario = Scenario.objects.get(slug="1912")
        made = {}
        for ticks in (LONG, *STOPS):
            run = create_run(scenario, seed=SEED, target_ticks=ticks, name=f"time travel {ticks}")
            made[ticks] = advance(run, ticks)
        yield made
        Run.objects.filter(pk__in=[r.pk for r in made.values()]).delete()


pytestmark = pytest.mark.django_db


def test_the_fold_at_the_last_tick_is_the_live_agent_state(runs):
    run = runs[LONG]
    now = ship_now(run)
    assert ship_then(run, cast_of(run), LONG) == now
    assert len({at.room for at in now.values()}) > 5 and any(at.rung for at in now.values())  # people moved, climbed


@pytest.mark.parametrize("tick", STOPS)
def test_the_fold_at_an_earlier_tick_is_the_agent_state_of_a_run_stopped_there(runs, tick):
    long_run, stopped = runs[LONG], runs[tick]
    assert ship_then(long_run, cast_of(long_run), tick) == ship_now(stopped)
    assert ship_then(long_run, cast_of(long_run), tick) != ship_now(long_run)


def test_the_fold_over_a_whole_day_with_its_nightfall_is_the_agent_state(one_day_run):
    now = ship_now(one_day_run)
    assert all(at.asleep for at in now.values() if at.alive)  # dawn of day 2, before anyone wakes
    assert ship_then(one_day_run, cast_of(one_day_run), 480) == now


def test_the_fold_holds_for_the_second_scenario_too():
    run = create_run(Scenario.objects.get(slug="edelweiss"), seed=9, target_ticks=30, name="time travel edelweiss")
    advance(run, 30)  # in the test's transaction: rolled back afterwards
    now = ship_now(run)
    assert ship_then(run, cast_of(run), 30) == now
    assert ship_then(run, cast_of(run), 0) != now
