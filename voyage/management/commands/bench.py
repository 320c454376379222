"""Benchmarks: each prints one JSON line of figures. `python manage.py bench engine --days 1`."""
import json

from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Run a benchmark and print one JSON line of figures."

    def add_arguments(self, parser):
        parser.add_argument("which", choices=["engine", "worker"])
        parser.add_argument("--days", type=float, default=1)
        parser.add_argument("--schedule", default="sequential", choices=["sequential", "simultaneous"])
        parser.add_argument("--runs", type=int, default=4, help="worker: runs queued together")
        parser.add_argument("--workers", type=int, default=2, help="worker: worker processes")
        parser.add_argument("--ticks", type=int, default=200, help="worker: ticks per run")
        parser.add_argument("--inner", action="store_true", help="(internal) run on the configured database")

    def handle(self, *args, **options):
        if options["which"] == "engine":
            from voyage.bench import engine

            if options["days"] <= 0:
                raise CommandError("--days must be positive")
            run = engine.inner if options["inner"] else engine.outer
            figures = run(options["days"], options["schedule"])
        if options["which"] == "worker":
            from voyage.bench import worker

            if min(options["runs"], options["workers"], options["ticks"]) < 1:
                raise CommandError("--runs, --workers and --ticks must be positive")
            run = worker.inner if options["inner"] else worker.outer
            figures = run(options["runs"], options["workers"], options["ticks"])
        self.stdout.write(json.dumps(figures))
