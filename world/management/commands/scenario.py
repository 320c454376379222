"""Scenario files: `manage.py scenario export 1912 -o 1912.yaml`, `manage.py scenario import FILE [--replace]`."""
from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from world.models import Scenario
from world.scenarios.file_format import ScenarioFileError
from world.scenarios.files import export_yaml, import_yaml


class Command(BaseCommand):
    help = "Export a scenario to a YAML file, or check and import one."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="verb", required=True)
        export = sub.add_parser("export", help="write a scenario as a YAML file")
        export.add_argument("slug")
        export.add_argument("-o", "--output", help="file to write (default: standard output)")
        load = sub.add_parser("import", help="check a YAML scenario file and load it (nothing is written on error)")
        load.add_argument("file")
        load.add_argument("--replace", action="store_true",
                          help="replace an installed scenario of the same slug (refused if runs use it)")

    def handle(self, *args, verb, **options):
        if verb == "export":
            return self.export(options["slug"], options.get("output"))
        return self.load(options["file"], options["replace"])

    def export(self, slug: str, output: str | None) -> None:
        try:
            scenario = Scenario.objects.get(slug=slug)
        except Scenario.DoesNotExist:
            known = ", ".join(Scenario.objects.order_by("slug").values_list("slug", flat=True)) or "none"
            raise CommandError(f"there is no scenario {slug!r} (installed: {known})") from None
        text = export_yaml(scenario)
        if output:
            Path(output).write_text(text, encoding="utf-8")
            self.stderr.write(f"scenario {slug!r} written to {output}")
        else:
            sys.stdout.write(text)

    def load(self, file: str, replace: bool) -> None:
        try:
            text = Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {file}: {exc}") from None
        try:
            scenario = import_yaml(text, replace=replace)
        except ScenarioFileError as exc:
            raise CommandError(f"{file} was not loaded (nothing was written):\n{exc}") from None
        self.stdout.write(f"scenario {scenario.slug!r} loaded: {scenario.rooms.count()} rooms, "
                          f"{scenario.personas.count()} personas, {scenario.props.count()} props, "
                          f"{scenario.rungs.count()} rungs")
