"""Attack, killing and kill witnesses, in hand-set situations through the real tick loop."""
import pytest

from tests.engine_helpers import ScriptedGateway, act, agent, cast_of, events, memories, name_of, new_run, \
    people_shown, stage, step
from voyage.models import LLMCall
from world.models import AgentState

pytestmark = pytest.mark.django_db

BUSY = {"busy_until_tick": 10_000}  # on stage, awake, but not acting


def test_a_killing_makes_every_awake_onlooker_a_kill_witness_and_the_dead_stay_dead():
    run = new_run()
    killer, victim, witness, sleeper, elsewhere = cast_of(5)
    stage(run, {
        killer: {"room": "grand_staircase", "rung": 1},
        victim: {"room": "grand_staircase", "asleep": True, **BUSY},  # a sleeper: the blow always kills
        witness: {"room": "grand_staircase", "rung": 1, **BUSY},
        sleeper: {"room": "grand_staircase", "asleep": True, **BUSY},
        elsewhere: {"room": "first_class_lounge", "rung": 1, **BUSY},
    })
    gateway = ScriptedGateway({
        killer: [act("attack", name_of(victim)), act("attack", name_of(victim))],
        witness: act("communicate", None, volume="shout", dialogue="Murder!"),
    })
    step(run, gateway)

    assert not agent(run, victim).alive
    [death] = events(run, "death")
    assert death.actor_id == agent(run, victim).id
    assert death.data == {"killer": killer, "witnesses": [witness]}
    assert agent(run, witness).kill_witness
    assert not agent(run, sleeper).kill_witness and not agent(run, elsewhere).kill_witness
    assert f"You saw {name_of(killer)} kill {name_of(victim)}!" in memories(run, witness, kind="violence")
    assert not memories(run, sleeper, kind="violence") and not memories(run, elsewhere, kind="violence")
    assert memories(run, victim, kind="violence")[-1].endswith("strikes you down. Everything goes dark.")
    # the killing witnessed prompts the witness's reflection, in the same tick
    [reflection] = events(run, "reflection")
    assert reflection.actor_id == agent(run, witness).id and reflection.text == "a killing witnessed"
    assert "(Prompted by a killing witnessed.)" in gateway.prompts("reflection", witness)[0]

    # next tick: the dead neither act, nor are seen, nor can be struck again
    agent_ids = {key: agent(run, key).id for key in (killer, witness)}
    AgentState.objects.filter(pk=agent_ids[witness]).update(busy_until_tick=run.tick)
    step(run, gateway)
    assert not [r for r in gateway.requests if r.agent_key == victim and r.purpose == "action"]
    [seen] = [people_shown(p) for p in gateway.prompts("action", witness)]
    assert sorted(seen) == sorted([name_of(killer), f"{name_of(sleeper)}, asleep"])
    again = LLMCall.objects.get(run=run, agent_id=agent_ids[killer], tick=run.tick - 1)
    assert again.outcome == LLMCall.ACTION_FAIL and "unknown target" in again.detail
    assert len(events(run, "death")) == 1


def test_an_awake_victim_is_killed_half_the_time_and_otherwise_fights_back():
    run = new_run(seed=4)
    attacker, victim, onlooker = cast_of(3)
    stage(run, {attacker: {"room": "bridge", "rung": 1}, victim: {"room": "bridge", "rung": 1, **BUSY},
                onlooker: {"room": "bridge", "rung": 1, **BUSY}})
    gateway = ScriptedGateway({attacker: act("attack", name_of(victim))})
    fought_off = 0
    while agent(run, victim).alive:
        assert run.tick < 140, "twenty attacks on someone awake and no killing"
        step(run, gateway)
        if agent(run, victim).alive:
            fought_off += 1
            [attack] = events(run, "attack", tick=run.tick - 1)
            assert attack.data == {"victim": victim, "witnesses": [onlooker]}
            assert memories(run, victim, kind="violence")[-1] == f"{name_of(attacker)} attacks you! You fight them off."
            assert memories(run, onlooker, kind="violence")[-1] == f"{name_of(attacker)} attacks {name_of(victim)}!"
            assert not agent(run, onlooker).kill_witness
    assert fought_off >= 1
    assert agent(run, onlooker).kill_witness
    assert events(run, "death")[0].data["witnesses"] == [onlooker]
