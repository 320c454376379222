"""Check a run's recorded prompts: `python manage.py prompts audit 3 --sample 50`.

`audit` rebuilds a seeded sample of the run's recorded calls from its committed record as of their
ticks (voyage/runs/audit.py: a scratch replay, rolled back, its world loaded afresh at each sampled
tick) and prints one JSON line: run, audited, equal, and the first difference (call, tick, agent,
purpose, and the two prompts around the first character where they part) or null."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from voyage.models import Run
from voyage.runs.audit import AuditError, audit


class Command(BaseCommand):
    help = "Audit a run's recorded prompts against those its committed record makes; prints one JSON line."

    def add_arguments(self, parser):
        parser.add_argument("verb", choices=["audit"])
        parser.add_argument("run_id", type=int)
        parser.add_argument("--sample", type=int, default=50, metavar="N", help="calls to rebuild (default 50)")
        parser.add_argument("--seed", type=int, default=0, help="draws another sample (default 0)")

    def handle(self, *args, verb, run_id, sample, seed, **options):
        try:
            run = Run.objects.get(pk=run_id)
        except Run.DoesNotExist:
            raise CommandError(f"there is no run {run_id}") from None
        try:
            result = audit(run, sample=sample, seed=seed)
        except AuditError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps(result, ensure_ascii=False))
