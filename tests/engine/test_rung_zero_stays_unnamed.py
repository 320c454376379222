"""What an agent perceived at rung 0 stays as it perceived it (issue 8, item 2).

Agent A meets B at rung 0 (B is "someone (unknown)" to it), walks elsewhere, climbs to rung 1 at
its name prop, meets C there and never sees B again. Through the day's reflections, trust calls,
nightfall and its dream, nothing A is given or writes may name B; C, met knowing names, is named.
"""
from __future__ import annotations

import json

import pytest

from memories.models import Dream, TrustEntry, TrustHistory
from tests.engine_helpers import new_run
from tests.memory_helpers import jobs_inline
from voyage.engine.runner import advance
from voyage.engine.steps import action_request
from voyage.engine.world import RunWorld
from voyage.gateway.base import ACTION, Gateway, ModelAnswer
from voyage.gateway.offline import OfflineModel
from voyage.gateway.prompts import decompress_messages, prompt_text
from voyage.models import LLMCall, Run
from world.models import Prop

pytestmark = pytest.mark.django_db


def act(action_type, target=None, volume=None, dialogue="", minutes=3):
    return json.dumps({"action_type": action_type, "target_character": target, "volume": volume,
                       "dialogue": dialogue, "duration_minutes": minutes, "internal_monologue": ""})


class Script(Gateway):
    """A's, B's and C's actions as the story needs them; every other call from the offline model."""

    def __init__(self, a, b, c, name_prop):
        self.a, self.b, self.c, self.name_prop = a, b, c, name_prop
        self.offline = OfflineModel(seed=5)
        self.done = set()  # who has already played their part at rung 0

    def once(self, who) -> bool:
        first = who not in self.done
        self.done.add(who)
        return first

    def complete(self, request):
        if request.purpose != ACTION:
            return self.offline.complete(request)
        s = request.hints.situation
        label = {aid: name for name, _, aid in s.people}
        if request.agent_id == self.a.id:
            if s.rung == 0 and self.b.id in label and self.once("a"):
                return ModelAnswer(act("interact", label[self.b.id]))
            if s.rung == 0 and s.room.room_id != self.name_prop.room_id:
                return ModelAnswer(act("move", self.name_prop.room.name))
            if s.rung == 0:
                return ModelAnswer(act("interact", next(n for n, pid in s.things if pid == self.name_prop.id)))
            if self.c.id in label:
                return ModelAnswer(act("communicate", label[self.c.id], "normal", "Good evening."))
        if request.agent_id == self.b.id and self.a.id in label and self.once("b"):
            return ModelAnswer(act("communicate", label[self.a.id], "normal", "Hello? Who is there?"))
        return ModelAnswer(act("sleep", minutes=480))


def cast(run):
    """A, its name prop, a public room R1 away from it, B (not A's cabin-mate) and C."""
    agents = list(run.agents.select_related("persona").order_by("persona__key"))
    a = agents[0]
    name_prop = Prop.objects.select_related("room").get(owner=a.persona, kind="name")
    b = next(x for x in agents if x.persona.home_node_id not in (a.persona.home_node_id, name_prop.room_id))
    c = next(x for x in agents if x not in (a, b) and x.persona.home_node_id != b.persona.home_node_id)
    r1 = run.scenario.rooms.filter(private=False).exclude(pk=name_prop.room_id).order_by("key").first()
    return a, b, c, name_prop, r1


@pytest.fixture(params=[Run.SEED_LAYOUT, Run.CACHED_LAYOUT])
def story(request):
    run = new_run(seed=5, target_ticks=320, context_layout=request.param)
    a, b, c, name_prop, r1 = cast(run)
    run.agents.update(asleep=True, busy_until_tick=100_000)  # the rest of the ship sleeps through it
    run.agents.filter(pk__in=[a.pk, b.pk]).update(location=r1, asleep=False, busy_until_tick=0)
    run.agents.filter(pk=c.pk).update(location=name_prop.room, asleep=True, busy_until_tick=100_000)
    run.tick = 2  # past the spouse collision: A meets nobody but B at rung 0
    run.save(update_fields=["tick"])
    with jobs_inline():  # the nightfall dream runs at once
        advance(run, 320, gateway=Script(a, b, c, name_prop))
    for x in (a, b, c):
        x.refresh_from_db()
    return run, a, b, c


def test_a_person_met_only_at_rung_0_is_never_named_to_the_agent(story):
    run, a, b, c = story
    assert a.rung == 1 and a.location_id != b.location_id
    b_name, c_name = b.persona.display_name, c.persona.display_name
    met_b = TrustEntry.objects.get(agent=a, other=b)  # the meeting at rung 0 was counted...
    assert met_b.interaction_count >= 1 and not met_b.known_by_name

    prompts = [prompt_text(decompress_messages(z)) + (raw or "")
               for z, raw in LLMCall.objects.filter(run=run, agent=a).values_list("prompt_z", "raw_answer")]
    trust_prompts = [p for p, purpose in zip(prompts, LLMCall.objects.filter(run=run, agent=a)
                                            .values_list("purpose", flat=True)) if purpose == "trust"]
    dreams = [" ".join(d) for d in Dream.objects.filter(agent=a).order_by("tick").values_list("identity", "places", "people")]
    history = list(TrustHistory.objects.filter(entry__agent=a).values_list("label", "emotional_tone", "rationale"))
    entries = list(TrustEntry.objects.filter(agent=a).values_list("label", "emotional_tone", "rationale"))

    # ...but nothing A was given or wrote names B
    assert not [p for p in prompts if b_name in p]
    assert not [h for h in history + entries if b_name in " ".join(h)]
    assert dreams and not [d for d in dreams if b_name in d]
    # while C, met at rung 1, is judged and dreamt of by name: the checks above could see a name
    assert trust_prompts and all(c_name in p for p in trust_prompts)
    assert c_name in dreams[-1]  # the night's dream


def test_a_rung_0_agent_is_not_handed_the_name_of_its_cabin():
    run = new_run(seed=5)
    world = RunWorld(run)
    a = world.agents[min(world.agents)]
    a.asleep = False
    _, request = action_request(world, a, 0)
    assert request.hints.home_name is None
    a.rung = 1
    _, request = action_request(world, a, 0)
    assert request.hints.home_name == a.persona.home_node.name
