"""The identity ladder at engine level: the rung-2 gate (one's own fear object, at least 480 ticks
after reaching rung 1), an action the rung forbids, and what a rung-0 agent's prompts may name."""
import pytest

from tests.engine_helpers import ScriptedGateway, act, agent, cast_of, events, memories, new_run, stage, step
from voyage.models import LLMCall
from world.models import Persona, Prop, Rung

pytestmark = pytest.mark.django_db

BUSY = {"busy_until_tick": 10_000}


def test_the_fear_object_opens_rung_2_only_a_day_after_rung_1():
    fear = Prop.objects.filter(kind="fear", owner__isnull=False, room__key="b_deck_corridor").first()
    owner = fear.owner
    [other] = cast_of(1, exclude=(owner.key,))
    run = new_run()
    stage(run, {owner.key: {"room": "b_deck_corridor", "rung": 1, "rung_reached_tick": 121},
                other: {"room": "b_deck_corridor", "rung": 1, "rung_reached_tick": 0}}, tick=600)
    gateway = ScriptedGateway({owner.key: act("interact", fear.name), other: act("interact", fear.name)})
    step(run, gateway)  # tick 600: 479 ticks at rung 1
    assert agent(run, owner.key).rung == 1 and not events(run, "rung")
    assert memories(run, owner.key, kind="examined")  # it did examine the object
    step(run, gateway)  # tick 601: 480 ticks
    climbed = agent(run, owner.key)
    assert (climbed.rung, climbed.rung_reached_tick) == (2, 601)
    [rung] = events(run, "rung")
    assert rung.actor_id == climbed.id and rung.data == {"rung": 2}
    [memory] = memories(run, owner.key, kind="rung")
    assert owner.fear in memory and owner.secret in memory
    assert agent(run, other).rung == 1  # someone else's fear object opens nothing, however long ago


def test_at_rung_0_the_fear_object_skips_no_rung():
    fear = Prop.objects.filter(kind="fear", owner__isnull=False, room__key="b_deck_corridor").first()
    run = new_run()
    stage(run, {fear.owner.key: {"room": "b_deck_corridor"}}, tick=600)
    step(run, ScriptedGateway({fear.owner.key: act("interact", "indistinct object 1")}), 2)
    assert events(run, "interact")[0].data["prop"] == fear.name
    assert agent(run, fear.owner.key).rung == 0


def test_an_action_the_rung_forbids_is_an_action_fail():
    """The rungs are data: a scenario whose rung 0 does not allow attack."""
    panic = Rung.objects.get(scenario__slug="1912", level=0)
    panic.allowed_actions = [a for a in panic.allowed_actions if a != "attack"]
    panic.save()
    run = new_run()
    attacker, victim = cast_of(2)
    stage(run, {attacker: {"room": "bridge"}, victim: {"room": "bridge", "asleep": True, **BUSY}})
    step(run, ScriptedGateway({attacker: act("attack", "someone (unknown 1)")}))
    call = LLMCall.objects.get(run=run, purpose="action")
    assert call.outcome == LLMCall.ACTION_FAIL
    assert call.detail == f"your state of mind (rung {panic.level}, {panic.name}) does not allow attack"
    assert memories(run, attacker, kind="action_fail") == [f"ACTION_FAIL: {call.detail}. You lose a minute."]
    assert agent(run, victim).alive and not memories(run, victim) and not events(run, "death")
    assert agent(run, attacker).busy_until_tick == 101  # one minute lost: free again next tick


def test_a_rung_0_agent_is_shown_no_name_of_a_person_or_an_item():
    run = new_run(importance_threshold=10_000)
    lost, talker, passer = cast_of(3)
    stage(run, {lost: {"room": "b_deck_corridor"}, talker: {"room": "b_deck_corridor", "rung": 1},
                passer: {"room": "grand_staircase", "rung": 1}})
    gateway = ScriptedGateway({
        lost: [act("interact", "indistinct object 2"),  # the alien object: a reflection follows
               act("communicate", "someone (unknown 1)", volume="normal", dialogue="Where are we?"),
               act("interact", "someone (unknown 1)")],
        talker: [act("communicate", None, volume="normal", dialogue="Good morning to you."), act("sleep", duration=60)],
        passer: [act("move", "B Deck Corridor"), act("interact", "Steward's Call Board")],
    })
    step(run, gateway, 3)
    prompts = gateway.prompts("action", lost) + gateway.prompts("reflection", lost)
    assert len(prompts) == 4
    names = set(Persona.objects.filter(scenario=run.scenario).values_list("display_name", flat=True))
    items = set(Prop.objects.filter(scenario=run.scenario).values_list("name", flat=True))
    for prompt in prompts:
        assert not [n for n in names | items if n in prompt]
    assert "someone (unknown 1)" in prompts[2] and "someone (unknown 2)" in prompts[2]  # both shown, unnamed
    assert "3 indistinct objects: indistinct object 1, indistinct object 2, indistinct object 3." in prompts[0]
    # what it perceived of them is in its memories, without names
    assert "someone (unknown) arrives from the Grand Staircase." in memories(run, lost, kind="seen")
    assert 'someone (unknown) says: "Good morning to you."' in memories(run, lost, kind="heard")
