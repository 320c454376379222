from pathlib import Path

from django.core.management.base import BaseCommand

from voyage.management.run_arg import add_output_argument, add_run_argument, run_from_arg
from voyage.records.transcript import markdown


class Command(BaseCommand):
    help = "Write a run's transcript (its event log) as Markdown."

    def add_arguments(self, parser):
        add_run_argument(parser, default="latest")
        parser.add_argument("--room", help="only this room (its key)")
        add_output_argument(parser, "file to write (default: stdout)")

    def handle(self, *args, **options):
        run = run_from_arg(options["run"])
        text = markdown(run, options.get("room"))
        if options.get("output"):
            Path(options["output"]).parent.mkdir(parents=True, exist_ok=True)
            Path(options["output"]).write_text(text)
        else:
            self.stdout.write(text)
