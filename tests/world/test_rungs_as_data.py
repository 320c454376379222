"""Rungs entirely as data: what each rung reveals and allows comes from the scenario's rung rows, so a
ladder of another shape works with no code change."""
import json

import pytest

from voyage.engine.runner import advance
from voyage.gateway.base import ACTION, ModelAnswer
from voyage.gateway.offline import OfflineModel
from voyage.models import Event
from voyage.runs.config import configure_run
from world.models import AgentState
from world.rules.ladder import (FEAR, HISTORY, ITEM_NAMES, OWN_NAME, PEOPLE_NAMES, SECRET, SETTING, RungSpec,
                                knows, newly_known)
from world.rules.perception import Person, Place, Thing, perceive, render_situation
from world.scenarios.files import import_yaml, shipped_file

ALL = ("interact", "move", "communicate", "sleep", "attack")
EVERYTHING = "[own_name, setting, item_names, people_names, trust_labels, history, fear, secret]"
RESOLVE = f"""- level: 3
  name: Resolve
  reveals: You know what you would do to keep your secret, and you will not raise a hand to anyone.
  allowed_actions: [interact, move, communicate, sleep]
  gate: {{prop: fear_prop, min_ticks_since_previous: 0}}
  knows: {EVERYTHING}
"""


def test_a_ladder_that_names_things_before_people():
    rungs = (RungSpec(0, "Fog", "", ALL, None, 0, frozenset({ITEM_NAMES})),
             RungSpec(1, "Faces", "", ALL, "name_prop", 0, frozenset({ITEM_NAMES, PEOPLE_NAMES, OWN_NAME})))
    s = perceive(agent_id=1, rung=0, knows=rungs[0].knows, room=Place(1, "Hall"), room_description="", scale="small",
                 ambient_noise="low", people=[Person(2, "Ada Holloway", label="ally")], things=[Thing(9, "Lamp")],
                 exits=[], rooms_by_name={"Hall": 1})
    text = render_situation(s)
    assert "someone (unknown 1)" in text and "Items here: Lamp." in text and "Ada" not in text
    assert knows(rungs, 1, PEOPLE_NAMES) and not knows(rungs, 0, PEOPLE_NAMES)
    assert newly_known(rungs, 1) == {PEOPLE_NAMES, OWN_NAME}


class AttackingAt3(OfflineModel):
    """The offline policy, except that Edmund Hale tries to attack his wife at every turn."""

    def complete(self, request):
        if request.purpose == ACTION and request.agent_key == "edmund_hale":
            return ModelAnswer(text=json.dumps({
                "action_type": "attack", "target_character": "Vivian Hale", "volume": None, "dialogue": "",
                "duration_minutes": 3, "internal_monologue": "She knows."}))
        return super().complete(request)


@pytest.mark.django_db
def test_a_four_rung_scenario_where_rung_3_forbids_attack():
    text = shipped_file("edelweiss").read_text(encoding="utf-8").replace("slug: edelweiss", "slug: four-rungs")
    scenario = import_yaml(text + RESOLVE)
    assert [s.level for s in scenario.rung_specs()] == [0, 1, 2, 3]
    run = configure_run(scenario, cast=["edmund_hale", "vivian_hale", "jonas_weber"], ticks=4, seed=5)
    AgentState.objects.filter(run=run, persona__key="edmund_hale").update(rung=3)
    advance(run, 4, gateway=AttackingAt3(seed=run.seed))
    fails = Event.objects.filter(run=run, kind="action_fail", actor__persona__key="edmund_hale")
    assert fails.exists()
    assert all(e.text == "your state of mind (rung 3, Resolve) does not allow attack" for e in fails)
    assert not Event.objects.filter(run=run, kind__in=("attack", "death")).exists()
    # The same attack at rung 2, which allows it, is not refused by the ladder.
    run2 = configure_run(scenario, cast=["edmund_hale", "vivian_hale", "jonas_weber"], ticks=4, seed=5)
    AgentState.objects.filter(run=run2, persona__key="edmund_hale").update(rung=2)
    advance(run2, 4, gateway=AttackingAt3(seed=run2.seed))
    assert not Event.objects.filter(run=run2, kind="action_fail", text__contains="does not allow").exists()
    assert Event.objects.filter(run=run2, kind__in=("attack", "death")).exists()  # he tried, and it happened


@pytest.mark.django_db
def test_what_a_rung_reveals_reaches_the_prompt_from_its_row():
    """A rung that knows the secret but not the name: the prompt carries the one and not the other."""
    text = shipped_file("edelweiss").read_text(encoding="utf-8").replace("slug: edelweiss", "slug: odd-ladder")
    text = text.replace("  gate: null\n  knows: []", "  gate: null\n  knows: [secret]")
    scenario = import_yaml(text)
    run = configure_run(scenario, cast=["edmund_hale", "vivian_hale"], ticks=2, seed=5)
    advance(run, 2)
    from voyage.models import LLMCall

    call = LLMCall.objects.filter(run=run, purpose="action", agent__persona__key="edmund_hale").first()
    system = call.prompt[0]["content"]
    assert "Your secret: You were never a major." in system
    assert "You are Edmund Hale." not in system and "Your life on paper" not in system
    assert {SETTING, OWN_NAME, HISTORY, FEAR} & set(scenario.rung_specs()[0].knows) == set()
    assert SECRET in scenario.rung_specs()[0].knows


@pytest.mark.django_db
@pytest.mark.parametrize("layout", ["seed", "cached"])
def test_a_rung_without_attack_is_never_offered_it_in_any_layout(layout):
    """Rung 3 leaves attack out: the rules text and the turn's list of actions of every action prompt
    of an agent at that rung name only what it allows; an agent at rung 2 still reads of attack."""
    import re

    from voyage.models import LLMCall

    text = shipped_file("edelweiss").read_text(encoding="utf-8").replace("slug: edelweiss", f"slug: no-attack-{layout}")
    scenario = import_yaml(text + RESOLVE)
    run = configure_run(scenario, cast=["edmund_hale", "vivian_hale", "jonas_weber"], ticks=4, seed=5,
                        context_layout=layout)
    AgentState.objects.filter(run=run, persona__key="edmund_hale").update(rung=3)
    AgentState.objects.filter(run=run, persona__key="vivian_hale").update(rung=2)
    advance(run, 4)
    calls = {key: [c.prompt for c in LLMCall.objects.filter(run=run, purpose=ACTION, agent__persona__key=key)]
             for key in ("edmund_hale", "vivian_hale")}
    assert calls["edmund_hale"] and calls["vivian_hale"]
    for prompt in calls["edmund_hale"]:
        system, user = prompt[0]["content"], prompt[-1]["content"]
        rules = system.split("An answer that breaks these rules")[0]
        guide = user[user.index("Actions you may take now"):]
        assert "- move:" in rules and "- sleep:" in rules
        assert not re.search(r"\battack", rules + guide, re.IGNORECASE), rules + guide
    assert all("- attack: strike a person here." in p[0]["content"] for p in calls["vivian_hale"])
