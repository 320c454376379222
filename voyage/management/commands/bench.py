"""Benchmarks: each prints one JSON line of figures. `python manage.py bench engine --days 1`."""
import json

from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Run a benchmark and print one JSON line of figures."

    def add_arguments(self, parser):
        parser.add_argument("which", choices=["engine", "memory"])
        parser.add_argument("--days", type=float, default=1)
        parser.add_argument("--schedule", default="sequential", choices=["sequential", "simultaneous"])
        parser.add_argument("--inner", action="store_true", help="(internal) run on the configured database")

    def handle(self, *args, **options):
        if options["which"] == "engine":
            from voyage.bench import engine

            if options["days"] <= 0:
                raise CommandError("--days must be positive")
            run = engine.inner if options["inner"] else engine.outer
            figures = run(options["days"], options["schedule"])
        elif options["which"] == "memory":  # memory over days: prompt sizes, compaction, context timings
            from voyage.bench import memory

            if options["days"] <= 0:
                raise CommandError("--days must be positive")
            figures = (memory.inner if options["inner"] else memory.outer)(options["days"])
        self.stdout.write(json.dumps(figures))
