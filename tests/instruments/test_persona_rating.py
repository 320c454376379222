"""Persona consistency (issue 40, item 3): the judge's ratings of persona texts against measured domain
scores, as a multitrait-multimethod table; planted correlations come back within their intervals, and
a persona is rated once per profile and prompt (cached, the call recorded)."""
from __future__ import annotations

import random

import numpy as np
import pytest

from tests.engine_helpers import new_run
from voyage.gateway.offline_traits import trait_answer, trait_vector
from voyage.instruments.models import PersonaRating
from voyage.instruments.persona_rating import mtmm, persona_ratings, rated
from voyage.models import LLMCall
from world.models import AgentState

DOMAINS = "NEOAC"


def generated(keys):
    """What the offline judge and the offline agents do: one rating and 24 items from the same traits."""
    rated, measured = {}, {}
    for k in keys:
        theta = trait_vector(k)
        r = random.Random(f"judge:{k}")
        rated[k] = {d: trait_answer(r, theta[d], 1, 1, 5) for d in DOMAINS}
        m = random.Random(f"agent:{k}")
        measured[k] = {d: sum(trait_answer(m, theta[d], 1, 1, 5) for _ in range(24)) for d in DOMAINS}
    return rated, measured


def test_planted_correlations_come_back_within_their_intervals():
    big_rated, big_measured = generated([f"big{n}" for n in range(20000)])
    implied = {d: np.corrcoef([big_rated[k][d] for k in big_rated], [big_measured[k][d] for k in big_rated])[0, 1]
               for d in DOMAINS}
    assert all(0.4 < r < 0.8 for r in implied.values())
    rated, measured = generated([f"p{n}" for n in range(300)])
    table = mtmm(rated, measured, seed=3)
    for d in DOMAINS:
        low, high = table["convergent"][d]["interval"]
        assert low <= implied[d] <= high
    low, high = table["discriminant"]["interval"]
    assert low <= 0 <= high  # the domains were planted independent
    assert table["matrix"][0][0] == table["convergent"]["N"]["value"]


def test_too_few_agents_say_so():
    rated, measured = generated(["a", "b", "c"])
    table = mtmm(rated, measured, seed=1)
    assert table["matrix"] is None and "at least 4" in table["discriminant"]["reason"]


@pytest.mark.django_db
def test_each_persona_is_rated_once_and_the_call_is_recorded():
    run = new_run(seed=5)
    agents = list(AgentState.objects.filter(run=run).select_related("persona").order_by("persona__key")[:6])
    everyone = list(AgentState.objects.filter(run=run).select_related("persona"))
    assert rated(run, everyone) == {}  # read only: nothing kept yet, nothing asked
    first = persona_ratings(run, agents)
    assert rated(run, everyone) == first  # what a report reads back: these six, under the same judge
    assert set(first) == {a.persona.key for a in agents}
    assert all(1 <= v <= 5 for r in first.values() for v in r.values())
    calls = LLMCall.objects.filter(run=run, purpose="survey").count()
    assert calls == 6 and PersonaRating.objects.filter(scripted=True).count() == 6
    other = new_run(seed=6)  # the same scenario: its personas are rated already
    again = persona_ratings(other, list(AgentState.objects.filter(run=other, persona__in=[a.persona for a in agents])
                                        .select_related("persona")))
    assert again == first and LLMCall.objects.filter(purpose="survey").count() == 6
    prompt = PersonaRating.objects.select_related("call").first().call
    assert prompt.agent_id in {a.id for a in agents}
