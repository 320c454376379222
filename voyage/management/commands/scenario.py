"""Scenario files: `manage.py scenario export 1912 -o 1912.yaml`, `manage.py scenario import FILE [--replace]`,
`manage.py scenario grow edelweiss --agents 2000 -o big.yaml` (a world tiled to N people),
`manage.py scenario draft --from FILE.txt|"a paragraph" -o world.yaml [--install]` (a world drafted
from a paragraph: voyage/drafting). It lives with the voyage app's commands because drafting runs
the engine for its dry run."""
from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from voyage.management.scenario_draft import add_draft_arguments, draft
from world.models import Scenario
from world.scenarios.file_format import ScenarioFileError, check_data
from world.scenarios.files import data_yaml, export_yaml, import_yaml, scenario_data
from world.scenarios.grow import GrowError, grow


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
        tiled = sub.add_parser("grow", help="write a scenario file of N people: copies of an installed world, joined")
        tiled.add_argument("slug")
        tiled.add_argument("--agents", type=int, required=True, help="how many people the grown world holds")
        tiled.add_argument("-o", "--output", help="file to write (default: standard output)")
        add_draft_arguments(sub.add_parser("draft", help="draft a world from a paragraph: checked, repaired, "
                                                         "proved by an offline day, installed only with --install"))

    def handle(self, *args, verb, **options):
        if verb == "export":
            return self.write(export_yaml(installed(options["slug"])), options.get("output"),
                              f"scenario {options['slug']!r}")
        if verb == "draft":
            return draft(self, options)
        if verb == "grow":
            return self.grow(options["slug"], options["agents"], options.get("output"))
        return self.load(options["file"], options["replace"])

    def grow(self, slug: str, agents: int, output: str | None) -> None:
        try:
            data = grow(scenario_data(installed(slug)), agents)
        except GrowError as exc:
            raise CommandError(str(exc)) from None
        if problems := check_data(data):  # the rules import applies: never write a file that would not load
            raise CommandError(f"the grown world of {slug!r} breaks the world's rules:\n"
                               + "\n".join(str(p) for p in problems[:10]))
        self.write(data_yaml(data), output, f"scenario {data['slug']!r} ({agents} people, {len(data['rooms'])} rooms)")

    def write(self, text: str, output: str | None, what: str) -> None:
        if output:
            Path(output).write_text(text, encoding="utf-8")
            self.stderr.write(f"{what} written to {output}")
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


def installed(slug: str) -> Scenario:
    try:
        return Scenario.objects.get(slug=slug)
    except Scenario.DoesNotExist:
        known = ", ".join(Scenario.objects.order_by("slug").values_list("slug", flat=True)) or "none"
        raise CommandError(f"there is no scenario {slug!r} (installed: {known})") from None
