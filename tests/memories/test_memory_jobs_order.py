"""A memory job's result depends only on what its tick recorded: the batch runner (jobs done right
after each tick) and a worker that gets to them late, out of order and twice write the same
summaries, eras, dreams, diary and trust history, by content, from the same model calls."""
import hashlib
import random

import pytest

from memories import job_queue, jobs
from memories.digest import memory_tables
from memories.models import PendingMemoryJob
from tests.oracle import assert_same, memory_entries, transcript as transcript_of
from voyage.engine.runner import advance, create_run
from voyage.models import LLMCall, Run
from world.models import Scenario

pytestmark = pytest.mark.django_db

TICKS = 330  # edelweiss (8 agents) past nightfall (tick 319: diaries, trust calls, the night's dreams); naps dream earlier
PARAMS = dict(seed=5, target_ticks=TICKS, hot_memory_limit=10, compaction_memory_count=20)
# Compaction before the call too (a tick's hard compaction must first do the agent's compactions
# still pending, as the batch runner had done them): with these limits some agents reach the hard
# limit while a soft job of theirs waits (a dozen times in the first 200 ticks), others never.
HARD = dict(PARAMS, compaction_memory_count=30, compaction_soft_chars=10**6, compaction_hard_chars=4_500)
MEMORY_PURPOSES = ("compaction", "era", "dream")


def _run(params):
    return create_run(Scenario.objects.get(slug="edelweiss"), **params)


def _calls(run):
    """The memory jobs' calls by content (prompt and answer); every call by purpose, tick and agent."""
    rows = LLMCall.objects.filter(run=run, abandoned=False).values_list(
        "purpose", "tick", "agent__persona__key", "prompt_z", "raw_answer")
    memory = sorted((p, t, a, hashlib.sha256(bytes(z)).hexdigest(), raw) for p, t, a, z, raw in rows
                    if p in MEMORY_PURPOSES)
    return memory, sorted((p, t, a or "") for p, t, a, _, _ in rows)


_batches = {}


@pytest.fixture(scope="module")
def batch(django_db_setup, django_db_blocker):
    """The batch runner's memory for a set of limits, computed once per module."""
    def of(limits: str):
        if limits not in _batches:
            with django_db_blocker.unblock():
                run = _run(LIMITS[limits])
                try:
                    advance(run, TICKS, memory_inline=True)
                    _batches[limits] = transcript_of(run), memory_tables(run), _calls(run)
                finally:
                    Run.objects.filter(pk=run.pk).delete()
        return _batches[limits]
    return of


LIMITS = {"soft": PARAMS, "hard": HARD}


def _late_worker(monkeypatch, rng: random.Random, *, chunk: int, params: dict):
    """Ticks as on the worker, the jobs handed to a 'memory worker' that does a random few of them,
    in random order, between chunks of ticks, sometimes twice, and the rest at the end."""
    delivered = []
    monkeypatch.setattr(job_queue, "async_task", lambda func, job, name, *args, **kw: delivered.append((job, name, args)))
    run = _run(params)
    owed = []  # jobs left undone while the ticks went on
    while run.tick < TICKS:
        advance(run, min(TICKS, run.tick + chunk))
        owed.append(jobs.pending(run.pk))
        rng.shuffle(delivered)
        for _ in range(rng.randrange(len(delivered) + 1)):
            job, name, args = delivered.pop()
            jobs.perform(job, name, *args)
            if rng.random() < 0.2:
                jobs.perform(job, name, *args)  # a second delivery of a done job
    assert max(owed) >= 5, "the worker must be late for this test to mean anything"
    for job, name, args in reversed(delivered):  # the rest, newest first (some done already, by a later job)
        jobs.perform(job, name, *args)
    assert jobs.pending(run.pk) == 0
    return run


@pytest.mark.parametrize("limits,seed,chunk", [("soft", 1, 9), ("soft", 2, 40), ("hard", 3, 9)])
def test_jobs_done_late_and_out_of_order_write_what_the_batch_runner_writes(batch, monkeypatch, limits, seed, chunk):
    transcript, tables, (memory_calls, all_calls) = batch(limits)
    assert len(tables["summaries"]) >= 30 and any(s[1] > 0 for s in tables["summaries"]), "compaction and eras happen"
    assert len(tables["dreams"]) >= 8 and tables["diary"] and tables["trust_history"]
    run = _late_worker(monkeypatch, random.Random(seed), chunk=chunk, params=LIMITS[limits])
    assert_same(transcript_of(run), transcript)
    assert_same(memory_entries(memory_tables(run)), memory_entries(tables), "memory tables")
    assert _calls(run) == (memory_calls, all_calls)
