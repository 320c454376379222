"""Compaction: LLM-written summaries of an agent's rows older than the hot window, each covering a
known range of rows (raw rows stay untouched), and era folding of the oldest summaries when they
pass their budget (recursive: eras fold into higher eras).

`compact` runs in a django-q2 job (memories.jobs.compact_agent) or, at the hard threshold, inside
the tick before the action call. Its inputs are the agent's own rows only.
"""
from __future__ import annotations

from django.db import IntegrityError, transaction

from memories.context import hot_window
from memories.identity import agent_for_job, identity_text
from memories.jobs import compaction_job
from memories.models import Memory, MemorySummary
from memories.thresholds import HARD, SOFT, batches, compaction_due, fold_count, should_queue
from memories.writing import FOLD_ERA, SUMMARISE, messages, row_line, subject_of
from voyage.gateway.base import COMPACTION, ERA, ModelRequest
from voyage.gateway.factory import gateway_for
from voyage.gateway.hints import RowsHints
from voyage.gateway.record import call_record
from voyage.models import LLMCall
from world.models import AgentState

SUMMARY_CHARS = 1_200  # a summary or era longer than this is clipped: the context stays bounded
MAX_FOLDS = 8


def compact(agent_id: int, *, gateway=None, tick: int | None = None) -> list[MemorySummary]:
    """Summarise the agent's committed rows that are older than its hot window and not yet covered;
    then fold eras if the summaries passed their budget. Returns the summaries written."""
    agent = agent_for_job(agent_id)
    if agent is None:
        return []
    run = agent.run
    covered = MemorySummary.objects.filter(agent=agent, level=0).order_by("-last_row").values_list("last_row", flat=True).first() or 0
    rows = list(Memory.objects.filter(agent=agent, id__gt=covered).order_by("id")
                .values_list("id", "tick", "kind", "importance", "text"))
    older = rows[:-run.hot_memory_limit] if run.hot_memory_limit else rows
    if not older:
        return []
    own_gateway = gateway is None
    gateway = gateway or gateway_for(run)
    identity = identity_text(agent)
    written = []
    try:
        for batch in batches(older, run.compaction_memory_count):
            request = ModelRequest(
                purpose=COMPACTION, messages=messages(identity, SUMMARISE, [row_line(r[1], r[4]) for r in batch]),
                tick=tick if tick is not None else batch[-1][1], agent_id=agent.id, agent_key=agent.persona.key,
                hints=RowsHints(rows=tuple(r[1:] for r in batch), subject=subject_of(agent)))
            answer = gateway.complete(request)
            if answer.failed:
                call_record(run.pk, request, answer, LLMCall.ERROR).save()
                break
            summary = _save(MemorySummary(run=run, agent=agent, level=0, first_row=batch[0][0], last_row=batch[-1][0],
                                          row_count=len(batch), tick=batch[-1][1], text=answer.text.strip()[:SUMMARY_CHARS]),
                            call_record(run.pk, request, answer, LLMCall.OK))
            if summary is None:  # another worker summarised these rows first
                break
            written.append(summary)
        if written:
            fold_eras(agent, gateway, identity, tick)
    finally:
        if own_gateway:
            gateway.close()
    return written


def fold_eras(agent: AgentState, gateway, identity: str, tick: int | None = None) -> list[MemorySummary]:
    """While the active summaries pass their budget, fold the oldest into one era summary."""
    eras = []
    for _ in range(MAX_FOLDS):
        active = list(MemorySummary.objects.filter(agent=agent, folded_into__isnull=True).order_by("first_row", "level"))
        n = fold_count([len(s.text) for s in active])
        if not n:
            break
        group = active[:n]
        request = ModelRequest(
            purpose=ERA, messages=messages(identity, FOLD_ERA, [row_line(s.tick, s.text) for s in group]),
            tick=tick if tick is not None else group[-1].tick, agent_id=agent.id, agent_key=agent.persona.key,
            hints=RowsHints(rows=tuple((s.tick, "summary", 0, s.text) for s in group), subject=subject_of(agent)))
        answer = gateway.complete(request)
        if answer.failed:
            call_record(agent.run_id, request, answer, LLMCall.ERROR).save()
            break
        era = MemorySummary(run_id=agent.run_id, agent=agent, level=max(s.level for s in group) + 1,
                            first_row=group[0].first_row, last_row=group[-1].last_row,
                            row_count=sum(s.row_count for s in group), tick=group[-1].tick,
                            text=answer.text.strip()[:SUMMARY_CHARS])
        saved = _save(era, call_record(agent.run_id, request, answer, LLMCall.OK), fold=group)
        if saved is None:
            break
        eras.append(saved)
    return eras


class _Lost(Exception):
    pass


def _save(summary: MemorySummary, call: LLMCall, fold=()) -> MemorySummary | None:
    """Write a summary (and mark what it folds) with its call record, or nothing if another worker
    got there first: the unique (agent, level, first_row) and a conditional UPDATE decide."""
    try:
        with transaction.atomic():
            summary.save()
            if fold:
                claimed = MemorySummary.objects.filter(pk__in=[s.pk for s in fold], folded_into__isnull=True).update(folded_into=summary)
                if claimed != len(fold):
                    raise _Lost
            call.save()
    except (IntegrityError, _Lost):
        return None
    return summary


# --- the check before each action call ------------------------------------------------------
def check_before_action(world, w, agent, gateway) -> str | None:
    """Spec section 7: soft thresholds ask for a job (done once this tick commits) and the tick goes
    on; the hard threshold compacts now, before the call, from the committed rows."""
    run = world.run
    memory = world.memory
    load = memory.load[agent.id]
    hot = hot_window(world, agent)
    limits = dict(memory_count=run.compaction_memory_count, soft_chars=run.compaction_soft_chars,
                  hard_chars=run.compaction_hard_chars)
    due = compaction_due(*load.older(len(hot), _chars(hot)), **limits)
    if due is None:
        return None
    if due == HARD:
        load = _recount(world, w, agent)  # a job may have finished meanwhile
        if compaction_due(*load.older(len(hot), _chars(hot)), **limits) == HARD:
            compact(agent.id, gateway=gateway, tick=w.tick)
            _recount(world, w, agent)
        return HARD
    if not should_queue(load, run.compaction_memory_count):
        return SOFT
    if load.queued_at is not None:
        load = _recount(world, w, agent)
        if compaction_due(*load.older(len(hot), _chars(hot)), **limits) is None:
            return None
    load.queued_at = load.count
    w.memory_jobs.append(compaction_job(run.pk, agent.id, w.tick))
    return SOFT


def _chars(hot) -> int:
    return sum(len(h.text) for h in hot)


def _recount(world, w, agent):
    load = world.memory.recount(agent.id)
    world.memory.add_buffered(agent.id, w.memories_of.get(agent.id, ()))
    return load
