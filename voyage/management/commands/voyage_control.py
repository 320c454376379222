"""Start, pause, resume or stop a run: `python manage.py voyage_control pause 3`.

The same functions (voyage.runs.control) serve the admin's actions and the API."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from voyage.runs import control


class Command(BaseCommand):
    help = "Start, pause, resume or stop a run; prints one JSON line with its new state."

    def add_arguments(self, parser):
        parser.add_argument("verb", choices=["start", "pause", "resume", "stop"])
        parser.add_argument("run_id", type=int)

    def handle(self, *args, verb, run_id, **options):
        try:
            run = getattr(control, verb)(run_id)
        except control.ControlError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps({"run_id": run.pk, "state": run.state, "tick": run.tick,
                                      "target_ticks": run.target_ticks}))
