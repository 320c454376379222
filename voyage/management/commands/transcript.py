from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from voyage.models import Run
from voyage.records.transcript import markdown


class Command(BaseCommand):
    help = "Write a run's transcript (its event log) as Markdown."

    def add_arguments(self, parser):
        parser.add_argument("--run", default="latest", help="run id, or 'latest'")
        parser.add_argument("--room", help="only this room (its key)")
        parser.add_argument("--output", help="file to write (default: stdout)")

    def handle(self, *args, **options):
        runs = Run.objects.order_by("-pk")
        run = runs.first() if options["run"] == "latest" else runs.filter(pk=options["run"]).first()
        if run is None:
            raise CommandError(f"no run {options['run']!r}")
        text = markdown(run, options.get("room"))
        if options.get("output"):
            Path(options["output"]).parent.mkdir(parents=True, exist_ok=True)
            Path(options["output"]).write_text(text)
        else:
            self.stdout.write(text)
