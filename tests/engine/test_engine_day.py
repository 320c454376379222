"""A whole offline day of the 1912 scenario, on a real database."""
import json

import pytest

from memories.models import Memory
from tests.privacy_helpers import assert_thoughts_stay_their_own, assert_whispers_stay_private
from world.time import NIGHTFALL, TICKS_PER_DAY
from voyage.models import Event, LLMCall
from world.models import AgentState

pytestmark = pytest.mark.django_db


def test_the_day_runs_to_its_end(one_day_run):
    one_day_run.refresh_from_db()
    assert one_day_run.tick == TICKS_PER_DAY
    assert LLMCall.objects.filter(run=one_day_run, purpose="action").count() > 3000
    assert Event.objects.filter(run=one_day_run, kind="move").count() > 300


def test_spouses_meet_at_tick_1(one_day_run):
    couples = {frozenset((a.persona.key, a.persona.spouse.key))
               for a in AgentState.objects.filter(run=one_day_run, persona__spouse__isnull=False)
               .select_related("persona__spouse")}
    assert len(couples) >= 4
    met = [set(e.data["agents"]) for e in Event.objects.filter(run=one_day_run, kind="spouse_collision")]
    assert all(e.tick == 1 for e in Event.objects.filter(run=one_day_run, kind="spouse_collision"))
    for couple in couples:
        assert any(couple <= group for group in met), f"{sorted(couple)} did not meet at tick 1"
        for key in couple:
            presence = Memory.objects.filter(agent__run=one_day_run, agent__persona__key=key, kind="presence")
            assert presence.filter(tick=1).count() == 1


def test_agents_climb_to_rung_1_within_the_day(one_day_run):
    climbed = AgentState.objects.filter(run=one_day_run, rung__gte=1)
    assert climbed.count() >= 1
    for agent in climbed:
        # the gate: the agent examined its own name prop at the tick it climbed
        reached = Event.objects.get(run=one_day_run, kind="rung", actor=agent, data__rung=1)
        examined = Event.objects.filter(run=one_day_run, kind="interact", actor=agent, tick=reached.tick)
        own_name_props = set(agent.persona.props.filter(kind="name").values_list("name", flat=True))
        assert any(e.data.get("prop") in own_name_props for e in examined)


def test_overnight_ticks_make_no_model_calls(one_day_run):
    calls = LLMCall.objects.filter(run=one_day_run).values_list("tick", flat=True)
    assert not [t for t in calls if t % TICKS_PER_DAY > NIGHTFALL]
    asleep = AgentState.objects.filter(run=one_day_run, alive=True)
    # every living agent was hard-slept at nightfall
    slept = Memory.objects.filter(run=one_day_run, kind="sleep", tick=NIGHTFALL, text__startswith="Night falls")
    assert slept.count() >= asleep.count()


def test_bulletin_reaches_every_living_agent(one_day_run):
    bulletin = Event.objects.get(run=one_day_run, kind="bulletin")
    assert bulletin.tick == TICKS_PER_DAY
    living = set(AgentState.objects.filter(run=one_day_run, alive=True).values_list("id", flat=True))
    got = set(Memory.objects.filter(run=one_day_run, kind="bulletin").values_list("agent_id", flat=True))
    assert got == living


def test_a_whisper_in_a_vast_room_never_reaches_a_bystander(one_day_run):
    """Who was in the room is rebuilt from the event log (moves, deaths, sleep and waking), not
    taken from the engine's own account of whom it delivered to."""
    awake_bystanders = assert_whispers_stay_private(one_day_run)
    assert awake_bystanders > 20, "the day had too few whispers in a vast room with a bystander to check"


def test_no_monologue_reaches_another_agent(one_day_run):
    """Every offline monologue carries a unique token; each token may appear only in its own
    agent's memories and prompts."""
    assert assert_thoughts_stay_their_own(one_day_run) > 1000


def test_every_action_prompt_is_stored_and_readable(one_day_run):
    call = LLMCall.objects.filter(run=one_day_run, purpose="action", tick=200).first()
    system, user = call.prompt
    assert system["role"] == "system" and "six keys" in system["content"]
    assert "Your memories, newest first:" in user["content"]
    assert len(bytes(call.prompt_z)) < len(json.dumps(call.prompt)) / 3
