"""The daily bulletin is written from the day's public facts only (deaths, where the crowds were,
where there was shouting, rumours abroad) and slipped into every living agent's memory."""
import json

import pytest

from tests.engine_helpers import ScriptedGateway, act, cast_of, memories, name_of, new_run, stage, step
from voyage.models import Run
from world.models import AgentState

pytestmark = pytest.mark.django_db

BUSY = {"busy_until_tick": 10_000}
SECRETS = ("heron-1111", "larch-2222", "ember-3333", "[thought 0badf00d]", "[thought 5ca1ab1e]")


def test_the_bulletin_is_written_from_public_facts_only_and_reaches_every_living_agent():
    run = new_run(attrition_threshold=1)
    killer, victim, talker, listener, walker, hermit = cast_of(6)
    stage(run, {
        killer: {"room": "grand_staircase", "rung": 1},
        victim: {"room": "grand_staircase", "asleep": True, **BUSY},
        talker: {"room": "grand_staircase", "rung": 1},
        listener: {"room": "grand_staircase", "rung": 1, **BUSY},
        walker: {"room": "b_deck_corridor", "rung": 1},
        hermit: {"room": "cabin_c62", **BUSY},
    }, tick=200)
    gateway = ScriptedGateway({
        killer: [act("attack", name_of(victim), thought="No one saw. [thought 0badf00d]"),
                 act("communicate", name_of(listener), volume="whisper", dialogue="Not a word. heron-1111")],
        talker: [act("communicate", name_of(listener), volume="normal", dialogue="Lovely evening. larch-2222"),
                 act("communicate", None, volume="shout", dialogue="Help! ember-3333",
                     thought="They will hang me. [thought 5ca1ab1e]")],
        walker: act("move", "Grand Staircase"),
    })
    step(run, gateway, 2)
    said = [m for key in (listener, talker) for m in memories(run, key)]
    assert any("heron-1111" in m for m in said) and any("[thought 5ca1ab1e]" in m for m in said)

    # on to the end of the day: everyone asleep, the bulletin at dawn
    AgentState.objects.filter(run=run, alive=True).update(asleep=True, busy_until_tick=480)
    Run.objects.filter(pk=run.pk).update(tick=479)
    run.refresh_from_db()
    step(run, gateway)
    [request] = [r for r in gateway.requests if r.purpose == "bulletin"]
    facts = request.messages[1]["content"].splitlines()
    whole = json.dumps(request.messages)
    assert not [s for s in SECRETS if s in whole]
    assert not [w for w in ("Lovely evening", "Not a word", "Help!", "No one saw") if w in whole]
    rumour = "Word goes round that whoever has the Cabin C-62 keeps to it and will not show their face."
    assert f"{name_of(victim)} was found dead in the Grand Staircase." in facts
    assert rumour in facts
    assert "The Grand Staircase was the place to be seen (1 comings and goings)." in facts
    assert "There was shouting in the Grand Staircase, 1 times over." in facts

    bulletin = "Slipped under the door at dawn: The Ship's Gossip: a scripted day."
    for key in (killer, talker, listener, walker, hermit):
        assert memories(run, key, kind="bulletin") == [bulletin], key
    assert memories(run, victim, kind="bulletin") == []
