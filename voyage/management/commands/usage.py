"""What a run's model calls used, per run, per agent and per purpose: `python manage.py usage --run 3`.

Prints one JSON line."""
import json

from django.core.management.base import BaseCommand, CommandError

from voyage.models import Run
from voyage.calls.usage import usage_totals


class Command(BaseCommand):
    help = "Print a run's model-call totals (tokens, cost, retries, failures) per run, agent and purpose."

    def add_arguments(self, parser):
        parser.add_argument("--run", required=True, help="a run id, or 'latest'")

    def handle(self, *args, **options):
        runs = Run.objects.order_by("-id")
        run = runs.first() if options["run"] == "latest" else runs.filter(pk=options["run"]).first() \
            if options["run"].isdigit() else None
        if run is None:
            raise CommandError(f"there is no run {options['run']!r}")
        self.stdout.write(json.dumps(usage_totals(run)))
