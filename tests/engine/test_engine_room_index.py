"""RunWorld's index of who is in each room (issue 21): kept by the moves the resolver applies, it
always equals what the agents' locations say, and what a fresh load from the database says."""
import pytest

from voyage.calls.factory import gateway_for
from voyage.engine.runner import create_run
from voyage.engine.tick import run_tick
from voyage.engine.world import RunWorld
from voyage.models import Event, Run
from world.models import Scenario

pytestmark = pytest.mark.django_db


def scanned(world, room_id, exclude=None):
    """Occupants the slow way: every agent looked at (what RunWorld.occupants did before its index)."""
    return [a for a in world.agents.values() if a.alive and a.location_id == room_id and a.id != exclude]


@pytest.mark.parametrize("schedule", [Run.SEQUENTIAL, Run.SIMULTANEOUS])
def test_the_room_index_follows_every_move(schedule):
    run = create_run(Scenario.objects.get(slug="1912"), seed=3, schedule=schedule, target_ticks=40)
    world, gateway = RunWorld(run), gateway_for(run)
    for _ in range(40):
        writer = run_tick(world, gateway)
        writer.commit(writer.start_tick + 1)
        for room_id in world.rooms:
            for exclude in (None, *world.in_room[room_id][:1]):
                assert world.occupants(room_id, exclude) == scanned(world, room_id, exclude)
    assert Event.objects.filter(run=run, kind="move").count() > 50  # the index was put to work
    fresh = RunWorld(Run.objects.get(pk=run.pk))
    assert {r: ids for r, ids in fresh.in_room.items() if ids} == {r: ids for r, ids in world.in_room.items() if ids}
