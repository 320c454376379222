"""Shared set-up for the memory tests: jobs run inline (django-q2 sync, STACK.md section 2), rows
planted, a run's world and its writer. Runs are made with tests/engine_helpers.py's new_run."""
from __future__ import annotations

import contextlib
import re

from django_q.conf import Conf

from memories.models import Memory
from voyage.engine.world import RunWorld
from voyage.engine.writer import TickWriter

NONCE = re.compile(r"\b[a-z]+-\d{4}\b")  # the offline policy's spoken codes ("pewter-6533")
THOUGHT = re.compile(r"\[thought [0-9a-f]{8}\]")  # the offline policy's monologue ids


@contextlib.contextmanager
def jobs_inline(sync: bool = True):
    old = Conf.SYNC
    Conf.SYNC = sync
    try:
        yield
    finally:
        Conf.SYNC = old


def plant(run, agent_id: int, texts, tick: int = 0, kind: str = "seen", importance: int = 2) -> list[Memory]:
    rows = [Memory(run=run, agent_id=agent_id, tick=tick, kind=kind, text=t, importance=importance) for t in texts]
    return Memory.objects.bulk_create(rows)


def world_and_writer(run):
    world = RunWorld(run)
    return world, TickWriter(world, run.tick)


def secrets_in(text: str) -> set[str]:
    return set(NONCE.findall(text)) | set(THOUGHT.findall(text))


def run_tables(run) -> dict:
    """Every table an agent's mind or the run's state lives in, as plain rows, and the run's own model
    calls (an instrument's calls, interviews, surveys and judging, are no part of the run): what an interview or
    a survey must leave as it found it."""
    from memories.models import DiaryEntry, Dream, MemorySummary, PendingMemoryJob, TrustEntry, TrustHistory
    from voyage.gateway.base import INSTRUMENT_PURPOSES
    from voyage.models import Event, LLMCall, Run
    from world.models import AgentState

    return {
        "memory_stream": list(Memory.objects.filter(run=run).order_by("id").values()),
        "memory_summaries": list(MemorySummary.objects.filter(run=run).order_by("id").values()),
        "trust_ledger": list(TrustEntry.objects.filter(run=run).order_by("id").values()),
        "trust_history": list(TrustHistory.objects.filter(entry__run=run).order_by("id").values()),
        "memory_dreams": list(Dream.objects.filter(run=run).order_by("id").values()),
        "memory_diary": list(DiaryEntry.objects.filter(run=run).order_by("id").values()),
        "agent_state": list(AgentState.objects.filter(run=run).order_by("id").values()),
        "event_log": list(Event.objects.filter(run=run).order_by("seq").values()),
        "pending_jobs": list(PendingMemoryJob.objects.filter(run=run).values()),
        "run": Run.objects.filter(pk=run.pk).values("tick", "state", "seed", "error").get(),
        "calls": list(LLMCall.objects.filter(run=run).exclude(purpose__in=INSTRUMENT_PURPOSES).order_by("id")
                      .values("id", "purpose", "raw_answer", "tick")),
    }


@contextlib.contextmanager
def finished_run(django_db_blocker, ticks: int, **params):
    """A run of 1912 advanced `ticks` ticks offline (memory jobs inline) and marked finished, made
    outside the tests' transactions for a module or session fixture to share, and deleted after."""
    from tests.engine_helpers import new_run
    from voyage.engine.runner import advance
    from voyage.models import Run

    with django_db_blocker.unblock(), jobs_inline():
        made = new_run(target_ticks=ticks, **params)
        advance(made, ticks, memory_inline=True)
        Run.objects.filter(pk=made.pk).update(state=Run.FINISHED)
        made.refresh_from_db()
    try:
        yield made
    finally:
        with django_db_blocker.unblock():  # leave no run for later files
            Run.objects.filter(pk=made.pk).delete()
