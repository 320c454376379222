"""Queue a voyage on the worker: `python manage.py start_voyage --scenario 1912 --days 1`.

Same options as run_voyage; returns at once with one JSON line (run_id, state, tick, target_ticks).
A `python manage.py qcluster` must be running for the run to advance."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from voyage.management.commands.run_voyage import add_run_options, run_from_options
from voyage.runs import control


class Command(BaseCommand):
    help = "Queue a voyage on the django-q2 worker and print one JSON line with its run_id."

    def add_arguments(self, parser):
        add_run_options(parser)

    def handle(self, *args, **options):
        run = run_from_options(options)
        try:
            run = control.start(run.pk)
        except control.ControlError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps({"run_id": run.pk, "state": run.state, "tick": run.tick,
                                      "target_ticks": run.target_ticks}))
