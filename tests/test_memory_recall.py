"""Total recall: a planted old row is found by its words, only in its own agent's stream, and the
context builder brings it back when the situation names what it mentions."""
import pytest

from memories.context import RECALL_HEADER, action_messages, cues_for
from memories.recall import recall
from tests.memory_helpers import new_run, plant, world_and_writer
from world.models import Prop

pytestmark = pytest.mark.django_db


def test_recall_finds_a_planted_old_row_by_its_words_in_its_own_stream_only():
    run = new_run()
    me, other = run.agents.order_by("id")[:2]
    plant(run, me.id, [f"Routine moment {i} on the promenade." for i in range(400)])
    [planted] = plant(run, me.id, ["You find a tarnished silver locket engraved with the initials R.W."], tick=5,
                      importance=6)
    plant(run, me.id, [f"Another routine moment {i}." for i in range(400)], tick=9)
    plant(run, other.id, ["Someone else's silver locket, glimpsed in a dream."], tick=9)
    hits = recall(me.id, "silver locket")
    assert [h.id for h in hits] == [planted.id]
    assert recall(me.id, "locket", before_id=planted.id) == []  # newer rows only: nothing older matches
    assert [h.text for h in recall(other.id, "locket")] == ["Someone else's silver locket, glimpsed in a dream."]
    assert recall(me.id, "zeppelin") == []


def test_the_context_builder_recalls_an_old_row_about_an_item_in_the_room():
    run = new_run()
    world, w = world_and_writer(run)
    agent = next(a for a in world.agents.values() if world.props_by_room[a.location_id])
    prop = world.props_by_room[agent.location_id][0]
    plant(run, agent.id, [f"You once saw the {prop.name} and could not forget it."], importance=7)
    plant(run, agent.id, [f"A passing moment {i}." for i in range(80)], tick=3)
    agent.rung = 1
    agent.save()
    world, w = world_and_writer(run)
    a = world.agents[agent.id]
    situation = world.situation(a)
    user = action_messages(world, a, situation, 10, cues_for(world, a, 10))[1]["content"]
    assert RECALL_HEADER in user and f"You once saw the {prop.name}" in user
    assert user.index(RECALL_HEADER) < user.index("You are in the")
    assert Prop.objects.filter(pk=prop.pk).exists()
