"""Write a run as a fixture: `python manage.py export_run RUN -o run-7.jsonl.gz`.

Load it into another instance with `python manage.py loaddata run-7.jsonl.gz` (see voyage/export/fixture.py)."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from voyage.export.fixture import ExportError, export_run
from voyage.management.run_arg import HELP as RUN_HELP, add_output_argument, run_from_arg


class Command(BaseCommand):
    help = "Write a run (with its scenario, cast, memories, events and model calls) as a loaddata fixture."

    def add_arguments(self, parser):
        parser.add_argument("run", help=RUN_HELP)
        add_output_argument(parser, "the fixture file, ending .jsonl.gz", required=True)

    def handle(self, *args, **options):
        run = run_from_arg(options["run"])
        try:
            export_run(run, options["output"])
        except ExportError as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"run {run.pk} ({run.uuid}) written to {options['output']}")
