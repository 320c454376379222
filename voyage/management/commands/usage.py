"""What a run's model calls used, per run, per agent and per purpose: `python manage.py usage --run 3`.

Prints one JSON line."""
import json

from django.core.management.base import BaseCommand

from voyage.calls.usage import usage_totals
from voyage.management.run_arg import add_run_argument, run_from_arg


class Command(BaseCommand):
    help = "Print a run's model-call totals (tokens, cost, retries, failures) per run, agent and purpose."

    def add_arguments(self, parser):
        add_run_argument(parser, required=True)

    def handle(self, *args, **options):
        run = run_from_arg(options["run"])
        self.stdout.write(json.dumps(usage_totals(run)))
