"""Memory ablations (issue 39): `Run.memory` switches parts of memory off, and a run so set really
goes without them, while a full run of the same seed has them."""
from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from memories.ablation import SETTINGS, off
from memories.models import Dream, Memory, MemorySummary, TrustHistory
from tests.engine_helpers import new_run, scenario
from tests.memory_helpers import jobs_inline
from voyage.engine.runner import advance
from voyage.models import LLMCall
from voyage.runs.config import configure_run

pytestmark = pytest.mark.django_db
TICKS = 70  # past the reflections at 15, 30, 45, 60 and their trust calls


def ran(memory: str):
    with jobs_inline():
        run = new_run(seed=5, target_ticks=TICKS, memory=memory, hot_memory_limit=10, compaction_memory_count=15)
        advance(run, TICKS, memory_inline=True)
    return run


def parts(run) -> dict:
    return {"reflection": Memory.objects.filter(run=run, kind="reflection").count(),
            "summaries": MemorySummary.objects.filter(run=run).count(),
            "trust": TrustHistory.objects.filter(entry__run=run).exclude(rationale="first met").count(),
            "dreams": Dream.objects.filter(run=run).count(),
            "recall": sum(len(ids) for ids in LLMCall.objects.filter(run=run, purpose="action")
                          .values_list("recalled", flat=True))}


def test_the_table_of_settings():
    assert SETTINGS["full"] == frozenset() and SETTINGS["no_reflection"] == {"reflection"}
    assert SETTINGS["hot_window_only"] == {"summaries", "reflection", "dreams", "trust", "recall"}
    assert off(type("R", (), {"memory": "no_trust"})(), "trust") and not off(object(), "trust")


def test_a_full_run_has_every_part_and_hot_window_only_has_none():
    full, bare = parts(ran("full")), parts(ran("hot_window_only"))
    assert all(full[p] > 0 for p in ("reflection", "summaries", "trust", "recall")), full
    assert bare == {"reflection": 0, "summaries": 0, "trust": 0, "dreams": 0, "recall": 0}


def test_no_reflection_keeps_the_rest():
    found = parts(ran("no_reflection"))
    assert found["reflection"] == 0 and found["summaries"] > 0 and found["recall"] > 0


def test_a_setting_that_does_not_exist_is_refused():
    with pytest.raises(ValidationError) as caught:
        configure_run(scenario(), memory="no_memory_at_all")
    assert "memory" in caught.value.message_dict
