"""Spouse collision (issue 8, item 5): at tick 1 the people sharing a cabin are forced to interact —
an `interact` event for each of them toward each of the others, and each sees being approached."""
from __future__ import annotations

from collections import defaultdict

import pytest

from memories.models import Memory, TrustEntry
from tests.engine_helpers import new_run
from voyage.engine.runner import advance
from voyage.models import Event

pytestmark = pytest.mark.django_db


def test_people_sharing_a_cabin_are_forced_to_interact():
    run = new_run(seed=3, target_ticks=2)
    advance(run, 2)
    agents = list(run.agents.select_related("persona"))
    cabins = defaultdict(list)
    for a in agents:
        cabins[a.persona.home_node_id].append(a)
    shared = [group for group in cabins.values() if len(group) > 1]
    assert shared
    forced = list(Event.objects.filter(run=run, tick=1, kind="interact", data__forced="spouse collision")
                  .values_list("actor_id", "data__person"))
    expected = {(a.id, o.persona.key) for group in shared for a in group for o in group if o is not a}
    assert set(forced) == expected and len(forced) == len(expected)  # each approaches each, once
    for group in shared:
        for a in group:
            approached = Memory.objects.filter(agent=a, tick=1, kind="seen", text__endswith="approaches you, studying your face.")
            assert approached.count() >= len(group) - 1  # it saw each of the others come to it
            labels = dict(TrustEntry.objects.filter(agent=a).values_list("other__persona_id", "label"))
            for o in group:
                if o is not a:
                    assert labels[o.persona_id] == ("spouse" if a.persona.spouse_id == o.persona_id else "cabin-mate")
    alone = [group[0] for group in cabins.values() if len(group) == 1]
    assert not Event.objects.filter(run=run, data__forced="spouse collision", actor__in=alone).exists()
