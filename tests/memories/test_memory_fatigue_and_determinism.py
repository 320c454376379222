"""Fatigue (a warning cue at fatigue_warning, forced sleep at fatigue_limit, and a dream for that
sleep) and determinism: the transcript does not depend on whether or when memory jobs ran, and a
resumed run gives the same transcript."""
import pytest

from memories.context import CUE_TEXT, action_messages, cues_for
from memories.dreams import queue_dreams
from memories.models import Dream, MemorySummary
from tests.engine_helpers import new_run
from tests.memory_helpers import jobs_inline, world_and_writer
from tests.oracle import assert_same_transcript
from voyage.engine import steps
from voyage.engine.runner import advance
from world.time import plan_tick

pytestmark = pytest.mark.django_db


def _awake(run, tick=30):
    run.tick = tick
    run.save()
    world, w = world_and_writer(run)
    a = next(iter(world.agents.values()))
    a.asleep, a.busy_until_tick, a.destination_id = False, 0, None
    return world, w, a


def test_the_fatigue_cue_appears_at_exactly_the_warning():
    run = new_run()
    world, w, a = _awake(run)
    a.fatigue = run.fatigue_warning - 1
    assert "fatigue" not in cues_for(world, a, w.tick)
    a.fatigue = run.fatigue_warning
    cues = cues_for(world, a, w.tick)
    assert "fatigue" in cues
    assert CUE_TEXT["fatigue"] in action_messages(world, a, world.situation(a), w.tick, cues)[1]["content"]


def test_forced_sleep_at_exactly_the_limit_and_it_dreams():
    run = new_run()
    world, w, a = _awake(run)
    a.fatigue = run.fatigue_limit - 1
    assert not steps.travel_or_collapse(world, w, a) and not a.asleep
    a.fatigue = run.fatigue_limit
    assert steps.travel_or_collapse(world, w, a) and a.asleep and a.fatigue == 0
    assert (a.busy_until_tick - w.tick) * 3 >= 30
    queue_dreams(world, w, plan_tick(w.tick))
    with jobs_inline():
        w.commit(w.tick + 1)
    assert Dream.objects.filter(agent_id=a.id, tick=30).exists()


def test_the_transcript_does_not_depend_on_memory_jobs_and_survives_a_resume():
    params = dict(seed=77, compaction_memory_count=30, target_ticks=90)
    queued = new_run(**params)
    with jobs_inline(False):  # jobs wait on the ORM broker: nothing is summarised
        advance(queued, 90)
    inline = new_run(**params)
    with jobs_inline():  # jobs run at once
        advance(inline, 45)
        advance(inline, 90)  # a fresh RunWorld: a resumed run
    assert not MemorySummary.objects.filter(run=queued).exists()
    assert MemorySummary.objects.filter(run=inline).count() > 30
    assert_same_transcript(queued, inline)
