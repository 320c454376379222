"""Creating runs and advancing them tick by tick, each tick committed atomically with the run's
tick counter: interrupt the process anywhere and the run resumes at the first uncommitted tick."""
from __future__ import annotations

import hashlib
import json
import time
from typing import Callable

from django.db import transaction

from memories.digest import memory_sha256
from memories.jobs import behind, pending, queue_jobs, run_inline, unfinished
from memories.models import DiaryEntry, Dream, Memory, MemorySummary
from voyage.calls.factory import gateway_for
from voyage.calls.usage import usage_summary
from voyage.engine.ahead import Stretch
from voyage.engine.budget import Budget
from voyage.engine.collector import collecting_less
from voyage.engine.tick import run_tick
from voyage.engine.world import RunWorld
from voyage.gateway.base import FormRefused, Gateway
from voyage.instruments.interventions import apply_due, copy_interventions, count as intervention_count, due_ticks
from voyage.models import Event, LLMCall, Run
from voyage.run_transitions import pause_itself
from world.models import AgentState, Scenario


def create_run(scenario: Scenario, *, seed: int = 1912, schedule: str = Run.SEQUENTIAL, target_ticks: int = 480,
               malformed_rate: float = 0.0, name: str = "", personas=None, **params) -> Run:
    """A new run with every persona (or those of `personas`, the cast) asleep in its home cabin, to
    wake at tick 0. Validated configuration goes through voyage.runs.config.configure_run. With no
    `context_layout` (or None), the run gets the one its model calls for (Run.layout_for)."""
    if not params.get("context_layout"):
        params["context_layout"] = Run.layout_for(params.get("profile"))
    with transaction.atomic():
        run = Run.objects.create(scenario=scenario, seed=seed, schedule=schedule, target_ticks=target_ticks,
                                 malformed_rate=malformed_rate, name=name, **params)
        AgentState.objects.bulk_create([
            AgentState(run=run, persona=p, location_id=p.home_node_id, asleep=True, busy_until_tick=0)
            for p in (scenario.personas.order_by("key") if personas is None else sorted(personas, key=lambda p: p.key))
        ])
        if run.replay_of_id:  # a replay repeats the source's interventions at their ticks; a fork, those before its tick
            copy_interventions(run.replay_of, run, before=run.fork_tick)
    return run


def advance(run: Run, until_tick: int, gateway: Gateway | None = None,
            on_tick: Callable[[int], None] | None = None, memory_inline: bool = False) -> Run:
    """Run ticks until `until_tick` is committed. Each tick commits alone; a failed commit throws the
    in-memory world away (the database stays as the last committed tick left it). A run whose
    budget is used up stops early, PAUSED, with the reason in pause_reason; so does one whose
    endpoint refuses the profile's structured-output form (FormRefused: the tick it was in is not
    committed, and runs again on resume once the profile is fixed).

    Memory jobs (compaction, dreams) go to the memory cluster, or with `memory_inline` are done
    right after each tick's commit, on this run's gateway, before the next tick starts. Jobs that a
    committed tick asked for and no process finished or queued (it was killed in between) are handed
    over first.

    In the simultaneous schedule with `run.run_ahead` > 0, on a gateway whose calls take time (not
    the offline policy or replay, which answer at once), the ticks between barriers run out of order
    (voyage/engine/ahead.py): the same transcript, committed tick by tick all the same."""
    gateway = gateway or gateway_for(run)
    memory = (lambda jobs: run_inline(jobs, gateway)) if memory_inline else queue_jobs
    world = RunWorld(run)
    budget = Budget(run)
    due = due_ticks(run)  # interventions waiting for a tick (voyage/instruments/interventions.py)
    # Out of order where there is latency to overlap: a gateway that answers at once (offline, replay)
    # would only pay the schedule's bookkeeping, for the same transcript.
    ahead = run.schedule == Run.SIMULTANEOUS and run.run_ahead > 0 and not gateway.answers_at_once

    def committed(writer) -> bool:  # the out-of-order schedule's commits: False stops it
        budget.add(writer.calls)
        if on_tick:
            on_tick(run.tick)
        return not budget.exhausted()

    with collecting_less():  # the collector, a few times a tick (voyage/engine/collector.py)
        try:
            if leftover := unfinished(run.pk):  # a killed process committed a tick but not its memory jobs
                memory(leftover)
            while run.tick < until_tick:
                if run.tick in due:
                    apply_due(run)
                    world = RunWorld(run)  # the database is the truth: load what the interventions wrote
                if why := budget.exhausted():
                    pause_itself(run, why)
                    break
                if ahead:  # out of order up to the next barrier tick (voyage/engine/ahead.py)
                    began = run.tick
                    try:  # its memory jobs, and its commits' writes, on threads of their own (where they can be)
                        with behind(world.memory, memory) as stretch_memory, \
                                Stretch(world, gateway, run.run_ahead, until_tick, stretch_memory, due,
                                        committed) as stretch:
                            stretch.run()
                    except FormRefused as exc:
                        pause_itself(run, str(exc))
                        break
                    except Exception:
                        run.refresh_from_db()
                        raise
                    if stretch.halted:  # the budget: what ran ahead of the last commit is not the truth
                        world = RunWorld(run)
                    if run.tick > began or stretch.halted:
                        continue
                    # run.tick is a barrier: everyone takes it together, in lock-step
                try:
                    writer = run_tick(world, gateway)
                except FormRefused as exc:
                    pause_itself(run, str(exc))
                    break
                try:
                    writer.commit(writer.start_tick + 1, memory)
                except Exception:
                    run.refresh_from_db()
                    raise
                budget.add(writer.calls)
                del writer  # the committed tick's rows (compressed prompts and all) are not held through the next tick
                if on_tick:
                    on_tick(run.tick)
            if run.tick in due:  # the run stops where interventions wait: they belong to this tick
                apply_due(run)
        finally:
            gateway.close()
    return run


def transcript_sha256(run: Run) -> str:
    """A hash of the event log in order, content only: no database ids, no wall-clock times."""
    digest = hashlib.sha256()
    rows = (Event.objects.filter(run=run).order_by("seq")
            .values_list("tick", "kind", "actor__persona__key", "room__key", "text", "data"))
    for tick, kind, actor, room, text, data in rows.iterator(chunk_size=5000):
        line = json.dumps([tick, kind, actor, room, text, data], sort_keys=True, ensure_ascii=False)
        digest.update(line.encode())
        digest.update(b"\n")
    return digest.hexdigest()


def run_summary(run: Run, wall_s: float) -> dict:
    from collections import Counter

    agents = AgentState.objects.filter(run=run)
    rungs = Counter(agents.values_list("rung", flat=True))
    return {
        "run_id": run.pk,
        "ticks": run.tick,
        "days": round(run.tick / 480, 3),
        "agents": agents.count(),
        "alive": agents.filter(alive=True).count(),
        "rooms": run.scenario.rooms.count(),
        "actions": LLMCall.objects.filter(run=run, purpose="action").count(),
        "action_fails": Event.objects.filter(run=run, kind="action_fail").count(),
        "memories": Memory.objects.filter(run=run).count(),
        "summaries": MemorySummary.objects.filter(run=run, level=0).count(),
        "eras": MemorySummary.objects.filter(run=run, level__gt=0).count(),
        "dreams": Dream.objects.filter(run=run).count(),
        "diary_entries": DiaryEntry.objects.filter(run=run).count(),
        "jobs_pending": pending(run.pk),
        "llm_calls": LLMCall.objects.filter(run=run, abandoned=False).count(),
        "llm_calls_abandoned": LLMCall.objects.filter(run=run, abandoned=True).count(),
        "interventions": intervention_count(run),
        "wall_s": round(wall_s, 3),
        "rung_counts": {str(spec.level): rungs.get(spec.level, 0) for spec in run.scenario.rung_specs()},
        "usage": usage_summary(run),
        "lead_mean": round(run.leads["sum"] / run.leads["n"], 3) if run.leads.get("n") else 0.0,
        "lead_max": run.leads.get("max", 0),
        "transcript_sha256": transcript_sha256(run),
        "memory_sha256": memory_sha256(run),
    }


class Stopwatch:
    def __init__(self):
        self.start = time.perf_counter()

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.start
