"""Fatigue (a warning cue at fatigue_warning, forced sleep at fatigue_limit, and a dream for that
sleep) and determinism: the transcript and the prompts do not depend on whether or when memory jobs
ran, and a resumed run gives the same."""
import pytest

from memories.attempts import catch_up_run
from memories.context import CUE_TEXT, DREAM_HEADER, action_messages, cues_for
from memories.digest import memory_sha256
from memories.dreams import queue_dreams
from memories.job_records import SHOW_LAG
from memories.models import Dream, MemorySummary, PendingMemoryJob
from tests.engine_helpers import new_run
from tests.memory_helpers import jobs_inline, world_and_writer
from tests.oracle import assert_same_transcript
from voyage.engine import steps
from voyage.engine.runner import advance
from voyage.models import LLMCall
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


def test_the_transcript_and_the_prompts_do_not_depend_on_when_memory_jobs_ran_and_survive_a_resume():
    """No memory worker takes the queued run's jobs: the engine does each itself before the first
    prompt that shows its rows (SHOW_LAG ticks after it was asked), and every prompt is the inline
    run's, whose jobs ran at each commit (docs/engine.md, "Every prompt from the record")."""
    params = dict(seed=77, compaction_memory_count=30, target_ticks=90)
    queued = new_run(**params)
    with jobs_inline(False):  # jobs wait on the ORM broker, which nothing reads
        advance(queued, 90)
    inline = new_run(**params)
    with jobs_inline():  # jobs run at once
        advance(inline, 45)
        advance(inline, 90)  # a fresh RunWorld: a resumed run
    owed = PendingMemoryJob.objects.filter(run=queued).values_list("tick", flat=True)
    assert owed and min(owed) > 89 - SHOW_LAG  # those no prompt up to tick 89 shows are still owed
    assert MemorySummary.objects.filter(run=queued).count() > 20
    assert MemorySummary.objects.filter(run=inline).count() > 30
    assert_same_transcript(queued, inline)
    prompts = [[(c.tick, c.agent.persona.key, c.prompt) for c in LLMCall.objects.filter(run=run, purpose="action")
                .order_by("id").select_related("agent__persona")] for run in (queued, inline)]
    assert prompts[0] == prompts[1]
    assert_shown_from_exactly_their_tick(queued, prompts[0])
    catch_up_run(queued.pk)
    assert memory_sha256(queued) == memory_sha256(inline)


def assert_shown_from_exactly_their_tick(run, prompts):
    """Each summary or era is in its agent's action prompts of the ticks from its job's tick + SHOW_LAG
    until an era folds it, and in no other; the latest dream that shows by a tick is in its prompts."""
    summaries = list(MemorySummary.objects.filter(run=run).select_related("agent__persona", "folded_into"))
    dreams = list(Dream.objects.filter(run=run).select_related("agent__persona").order_by("tick"))
    asked = set(LLMCall.objects.filter(run=run, purpose="compaction").values_list("agent_id", "tick"))
    assert {(s.agent_id, s.shown_from - SHOW_LAG) for s in summaries} <= asked
    assert {d.shown_from - d.tick for d in dreams} <= {SHOW_LAG, SHOW_LAG + 1}  # its job's tick: the sleep's or the next
    shown = 0
    for tick, key, messages in prompts:
        system = messages[0]["content"]
        for s in summaries:
            if s.agent.persona.key == key:
                hidden = s.folded_into.shown_from if s.folded_into else None
                assert (f"- {s.text}" in system) == (s.shown_from <= tick and (hidden is None or tick < hidden)), \
                    (tick, key, s.level, s.shown_from, hidden)
                shown += s.shown_from == tick
        latest = [d for d in dreams if d.agent.persona.key == key and d.shown_from <= tick][-1:]
        assert (DREAM_HEADER in system) == bool(latest) and all(DREAM_HEADER + "\n" + d.text in system for d in latest)
    assert shown, "some agent acted at the very tick a summary began to show"
