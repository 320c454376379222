"""Write a run's tidy tables: `python manage.py export_tables RUN -o DIR` (one CSV per table; see
voyage/export/tables.py and the README for the columns)."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand

from voyage.export.tables import write_tables
from voyage.management.run_arg import HELP as RUN_HELP, add_output_argument, run_from_arg


class Command(BaseCommand):
    help = "Write a run's events, memories, trust history, rung changes, model calls and agent states as CSV."

    def add_arguments(self, parser):
        parser.add_argument("run", help=RUN_HELP)
        add_output_argument(parser, "the directory for the CSV files", required=True)

    def handle(self, *args, **options):
        run = run_from_arg(options["run"])
        for path in write_tables(run, Path(options["output"])):
            self.stdout.write(str(path))
