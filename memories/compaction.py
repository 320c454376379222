"""Compaction: LLM-written summaries of an agent's rows older than the hot window, each covering a
known range of rows (raw rows stay untouched), and era folding of the oldest summaries when they
pass their budget (recursive: eras fold into higher eras).

`compact` runs as a memory job (a `Compaction` record, memories.job_records, done by `do_compaction`)
or, at the hard threshold, inside the tick before the action call. Its inputs are the agent's own
rows only.
"""
from __future__ import annotations

from memories.ablation import off
from memories.attempts import Attempt, Lost, catch_up_compactions
from memories.context import hot_window
from memories.identity import agent_for_job, identity_text
from memories.job_records import Compaction, register
from memories.models import Memory, MemorySummary
from memories.thresholds import HARD, SOFT, batches, compaction_due, fold_count
from memories.writing import FOLD_ERA, ROW, SUMMARISE, hint_rows, messages, row_line, subject_of
from voyage.calls.factory import gateway_for
from voyage.calls.record import call_record
from voyage.gateway.base import COMPACTION, ERA, ModelRequest
from voyage.gateway.hints import RowsHints
from voyage.models import LLMCall
from world.models import AgentState

SUMMARY_CHARS = 1_200  # a summary or era longer than this is clipped: the context stays bounded
MAX_FOLDS = 8


def compact(agent_id: int, *, gateway=None, tick: int | None = None, below_row: int | None = None,
            rung: int | None = None, attempt=None, shown_from: int = 0, hard: bool = False) -> list[MemorySummary]:
    """Summarise the agent's committed rows not yet covered that are older than its hot window — the
    window as its tick left it (`below_row`: the first row in it, recorded with the job), or as the
    committed rows stand now (a hard compaction inside a tick, `hard`); then fold eras if the
    summaries passed their budget. What it writes shows in prompts from `shown_from` (a job's: its
    tick + SHOW_LAG); a hard compaction's shows at once, with every summary of the agent's its
    compactions still pending wrote (they were done first, and the rows they cover are gone from
    its hot window too). Everything is written at once, with the job's pending row gone, by the
    attempt (memories.attempts). Returns the summaries written."""
    attempt = attempt or Attempt(None)
    agent = agent_for_job(agent_id)
    if agent is None:
        attempt.commit()
        return []
    if rung is not None:  # the agent as its tick left it: what it knew of itself then
        agent.rung = rung
    run = agent.run
    covered = MemorySummary.objects.filter(agent=agent, level=0).order_by("-last_row").values_list("last_row", flat=True).first() or 0
    rows = Memory.objects.filter(agent=agent, id__gt=covered).order_by("id")
    if below_row is not None:
        older = list(rows.filter(id__lt=below_row).values_list(*ROW, named=True))
    else:
        rows = list(rows.values_list(*ROW, named=True))
        older = rows[:-run.hot_memory_limit] if run.hot_memory_limit else rows
    if not older:
        attempt.commit(lambda: _save([], [], agent if hard else None, shown_from))
        return []
    own_gateway = gateway is None
    gateway = gateway or gateway_for(run)
    identity = identity_text(agent, upto_tick=tick)
    written = []
    try:
        for batch in batches(older, run.compaction_memory_count):
            request = ModelRequest(
                purpose=COMPACTION, messages=messages(identity, SUMMARISE, [row_line(r.tick, r.text) for r in batch]),
                tick=tick if tick is not None else batch[-1].tick, agent_id=agent.id, agent_key=agent.persona.key,
                hints=RowsHints(rows=hint_rows(batch), subject=subject_of(agent)))
            answer = gateway.complete(request)
            if answer.failed:
                attempt.record(call_record(run.pk, request, answer, LLMCall.ERROR))
                break
            attempt.record(call_record(run.pk, request, answer, LLMCall.OK))
            written.append(MemorySummary(run=run, agent=agent, level=0, first_row=batch[0].id, last_row=batch[-1].id,
                                         row_count=len(batch), tick=batch[-1].tick, text=answer.text.strip()[:SUMMARY_CHARS],
                                         shown_from=shown_from))
        eras = fold_eras(agent, gateway, identity, tick, new=written, attempt=attempt, shown_from=shown_from) \
            if written else []
    finally:
        if own_gateway:
            gateway.close()
    if not attempt.commit(lambda: _save(written, eras, agent if hard else None, shown_from)):
        return []
    return written


def do_compaction(job: Compaction, gateway=None, attempt=None) -> int:
    return len(compact(job.agent_id, tick=job.tick, below_row=job.below_row, rung=job.rung, gateway=gateway,
                       attempt=attempt, shown_from=job.shown_from))


register(Compaction, do_compaction)


def fold_eras(agent: AgentState, gateway, identity: str, tick: int | None = None, new=(), attempt=None,
              shown_from: int = 0) -> list:
    """While the active summaries (those saved and the `new` ones) pass their budget, fold the oldest
    into one era summary, which shows from `shown_from` in place of them (until then they show).
    Returns [(era, the summaries it folds)], unsaved: `_save` writes them."""
    active = list(MemorySummary.objects.filter(agent=agent, folded_into__isnull=True)) + list(new)
    active.sort(key=lambda s: (s.first_row, s.level))
    eras = []
    for _ in range(MAX_FOLDS):
        n = fold_count([len(s.text) for s in active])
        if not n:
            break
        group = active[:n]
        request = ModelRequest(
            purpose=ERA, messages=messages(identity, FOLD_ERA, [row_line(s.tick, s.text) for s in group]),
            tick=tick if tick is not None else group[-1].tick, agent_id=agent.id, agent_key=agent.persona.key,
            hints=RowsHints(rows=tuple((s.tick, "summary", 0, s.text) for s in group), subject=subject_of(agent)))
        answer = gateway.complete(request)
        outcome = LLMCall.ERROR if answer.failed else LLMCall.OK
        call = call_record(agent.run_id, request, answer, outcome)
        if attempt is not None:
            attempt.record(call)
        else:
            call.save()
        if answer.failed:
            break
        era = MemorySummary(run_id=agent.run_id, agent=agent, level=max(s.level for s in group) + 1,
                            first_row=group[0].first_row, last_row=group[-1].last_row,
                            row_count=sum(s.row_count for s in group), tick=group[-1].tick,
                            text=answer.text.strip()[:SUMMARY_CHARS], shown_from=shown_from)
        eras.append((era, group))
        active = sorted([era] + active[n:], key=lambda s: (s.first_row, s.level))
    return eras


def _save(summaries: list[MemorySummary], eras: list, hard_for: AgentState | None = None, shown_from: int = 0) -> None:
    """Inside the attempt's transaction: the new summaries, then each era and what it folds. A
    summary already there (unique agent, level, first_row) or a fold already made means another
    attempt did this job: raise, and nothing of ours is written. A hard compaction (`hard_for`, its
    agent) shows what the agent's pending compactions wrote from its own tick, `shown_from`."""
    for summary in summaries:
        summary.save()
    for era, group in eras:
        era.save()
        if MemorySummary.objects.filter(pk__in=[s.pk for s in group], folded_into__isnull=True).update(
                folded_into=era) != len(group):
            raise Lost
    if hard_for is not None:
        MemorySummary.objects.filter(agent=hard_for, shown_from__gt=shown_from).update(shown_from=shown_from)


# --- the check before each action call ------------------------------------------------------
def check_before_action(world, w, agent, gateway) -> str | None:
    """Before each action call: soft thresholds ask for a job (done once this tick commits) and the tick goes
    on; the hard threshold compacts now, before the call, from the committed rows — after the
    agent's compactions still pending, which come first (their rows were fixed by their ticks)."""
    run = world.run
    due = compaction_due_now(world, agent)
    if due is None:
        return None
    if due == HARD:
        world.memory.wait_for_jobs()  # a thread of this process may be doing one of them (memories.jobs.Behind)
        catch_up_compactions(run.pk, agent.id, gateway)
        compact(agent.id, gateway=gateway, tick=w.tick, shown_from=w.tick, hard=True)  # the call about to be made shows it
        _recount(world, w, agent)
        return HARD
    job = Compaction(run.pk, agent.id, w.tick)
    if job not in w.memory_jobs:  # asked once a tick; the commit counts it done
        w.memory_jobs.append(job)
    return SOFT


def compaction_due_now(world, agent) -> str | None:
    """HARD, SOFT or None: what check_before_action would do for the agent now (None, always, when the
    run's memory setting turns summaries off: its older rows are never summarised)."""
    run = world.run
    if off(run, "summaries"):
        return None
    hot = hot_window(world, agent)
    limits = dict(memory_count=run.compaction_memory_count, soft_chars=run.compaction_soft_chars,
                  hard_chars=run.compaction_hard_chars)
    return compaction_due(*world.memory.load[agent.id].older(len(hot), _chars(hot)), **limits)


def _chars(hot) -> int:
    return sum(len(h.text) for h in hot)


def _recount(world, w, agent):
    load = world.memory.recount(agent.id)
    world.memory.add_buffered(agent.id, w.memories_of.get(agent.id, ()))
    return load
