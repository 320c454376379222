"""Privacy checks over a whole finished run, shared by the tests of the 1912 day
(tests/engine/test_engine_day.py) and of grown worlds (tests/engine/test_scenario_grow_runs.py). Each checks the
engine's deliveries against the event log or the agents' own calls, never against the engine's own
account, and returns how much it checked so a test can tell a pass from an empty check."""
from __future__ import annotations

import json

from memories.models import Memory
from tests.engine_helpers import ShipLog
from tests.memory_helpers import THOUGHT
from voyage.models import Event, LLMCall
from voyage.records.audits import thought_owners
from world.models import AgentState, Room


def assert_whispers_stay_private(run) -> int:
    """A whisper in a vast room reaches its target (awake) and nobody else's memory; an awake bystander
    sees that it passed, a sleeping one does not. Who was in the room is rebuilt from the event log
    (moves, deaths, sleep and waking). Returns the awake bystanders checked."""
    vast = set(Room.objects.filter(scenario=run.scenario, scale="vast").values_list("id", flat=True))
    whispers = Event.objects.filter(run=run, kind="communicate", data__volume="whisper", room_id__in=vast)
    key_of = dict(AgentState.objects.filter(run=run).values_list("persona__key", "id"))
    ships = ShipLog(run).snapshots(e.seq for e in whispers)
    awake_bystanders = 0
    for e in whispers:
        ship, target = ships[e.seq], key_of[e.data["target"]]
        assert ship.location[target] == e.room_id and target not in ship.dead
        heard = Memory.objects.filter(agent_id=target, tick=e.tick, kind="heard", text__contains=e.text).exists()
        assert heard != (target in ship.asleep), f"the target, awake or not, heard wrongly: {e.text}"
        for other in ship.in_room(e.room_id, exclude=e.actor_id) - {target}:
            mem = Memory.objects.filter(agent_id=other)
            assert not mem.filter(text__contains=e.text).exists(), f"agent {other} heard a whisper: {e.text}"
            saw = mem.filter(tick=e.tick, kind="observed", text__contains="whispered to").exists()
            if other in ship.asleep:
                assert not saw, f"agent {other} saw a whisper in its sleep"
            else:
                awake_bystanders += 1
                assert saw, f"agent {other} was in the room, awake, and did not see the whisper pass"
    return awake_bystanders


def assert_thoughts_stay_their_own(run) -> int:
    """Every offline monologue carries a unique token; each token may appear only in its own agent's
    memories and prompts. Returns the number of tokens."""
    owner = thought_owners(run)  # the audit's own reading of the answers (voyage/records/audits.py)
    for agent_id, text in Memory.objects.filter(run=run, text__contains="[thought ").values_list("agent_id", "text"):
        for token in THOUGHT.findall(text):
            assert owner[token] == agent_id, f"agent {agent_id} remembers another's thought {token}"
    for call in LLMCall.objects.filter(run=run).iterator():
        prompt = json.dumps(call.prompt)
        for token in THOUGHT.findall(prompt):
            assert owner[token] == call.agent_id, f"{call.purpose} prompt of agent {call.agent_id} holds {token}"
    return len(owner)


# Rows through which a rung-0 agent may meet a name: world text it read (a name prop's description
# says whose it is), words it heard (someone who knows their name says it), the public bulletin.
NAMING_KINDS = ("examined", "heard", "bulletin")


def assert_no_name_before_its_rung(run) -> int:
    """No call of an agent whose rung does not yet know people's names shows any person's name,
    except one it had read, heard or been told in the bulletin by then: every prompt of an agent at
    rung 0 (a rung that knows nothing), until the tick it climbed. Returns the prompts checked."""
    assert not run.scenario.rung_specs()[0].knows, "the check assumes rung 0 knows nothing"
    names = list(AgentState.objects.filter(run=run).values_list("persona__display_name", flat=True))
    climbed = {e.actor_id: e.tick for e in Event.objects.filter(run=run, kind="rung", data__rung=1)}
    met: dict[tuple[int, str], int] = {}  # (agent, name) -> the first tick a naming row gave it the name
    for agent_id, tick, text in (Memory.objects.filter(run=run, kind__in=NAMING_KINDS).order_by("id")
                                 .values_list("agent_id", "tick", "text")):
        for name in names:
            if name in text:
                met.setdefault((agent_id, name), tick)
    checked = 0
    for call in LLMCall.objects.filter(run=run, agent__isnull=False).iterator():
        if call.tick >= climbed.get(call.agent_id, call.tick + 1):
            continue
        prompt = "\n".join(m["content"] for m in call.prompt)
        named = [n for n in names if n in prompt and met.get((call.agent_id, n), call.tick + 1) > call.tick]
        assert not named, f"a rung-0 {call.purpose} prompt of agent {call.agent_id} names {named}"
        checked += 1
    return checked
