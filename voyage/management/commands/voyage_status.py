"""List runs: tick, state (queued, running, paused, finished, failed), memory jobs still owed and
the last error, or why a paused run paused itself (its budget, an endpoint refusing its form). A
finished run whose memory jobs are still owed reads "finished; N memory jobs still running": its
summaries and dreams come only when a memory worker takes them.

`--json`: one JSON line per run with run_id, tick, target_ticks, state, error, claimed_by,
pause_reason, jobs_pending, state_text, transcript_sha256, interventions (how many were applied), memory_sha256
(rows and a hash per memory table: summaries, dreams, diary, trust_history; memories.digest),
llm_calls and llm_calls_abandoned (made by a memory job's attempt that was killed)."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand

from memories.digest import memory_sha256
from memories.jobs import pending
from voyage.engine.runner import transcript_sha256
from voyage.instruments.interventions import count as intervention_count
from voyage.models import LLMCall, Run
from voyage.runs.state import state_text


class Command(BaseCommand):
    help = "List runs with their tick, state and last error (or why a run paused itself)."

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="one JSON line per run")
        parser.add_argument("--run", type=int, action="append", help="only this run (repeatable)")

    def handle(self, *args, **options):
        runs = Run.objects.order_by("pk")
        if options["run"]:
            runs = runs.filter(pk__in=options["run"])
        if options["json"]:
            for run in runs:
                self.stdout.write(json.dumps({
                    "run_id": run.pk, "tick": run.tick, "target_ticks": run.target_ticks, "state": run.state,
                    "error": run.error, "pause_reason": run.pause_reason, "claimed_by": run.claimed_by,
                    "jobs_pending": pending(run.pk), "state_text": state_text(run.state, pending(run.pk)),
                    "transcript_sha256": transcript_sha256(run), "interventions": intervention_count(run),
                    "memory_sha256": memory_sha256(run),
                    "llm_calls": LLMCall.objects.filter(run=run, abandoned=False).count(),
                    "llm_calls_abandoned": LLMCall.objects.filter(run=run, abandoned=True).count(),
                }))
            return
        self.stdout.write(f"{'run':>5}  {'tick':>11}  {'state':<8}  {'memory jobs':>11}  {'worker':<24}  error")
        for run in runs:
            progress = f"{run.tick}/{run.target_ticks}"
            problem = run.error or run.pause_reason
            error = problem.splitlines()[0][:160] if problem else ""
            jobs = pending(run.pk)
            self.stdout.write(f"{run.pk:>5}  {progress:>11}  {state_text(run.state, jobs):<8}  {jobs:>11}  "
                              f"{run.claimed_by[:24]:<24}  {error}")
            if jobs and run.state == Run.FINISHED:
                self.stdout.write(f"      its summaries and dreams are written as a memory worker takes them (make worker).")
