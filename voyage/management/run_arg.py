"""The run a command line names: every command that takes `--run` resolves it here, so an id, a
uuid and "latest" (the newest run) mean the same thing to all of them."""
from __future__ import annotations

import argparse
import uuid

from django.core.management.base import CommandError

from voyage.models import Run

HELP = "a run: its id, its uuid, or 'latest' (the newest)"


def run_from_arg(value: str) -> Run:
    """The run `value` names; CommandError (naming what was given) when there is none."""
    runs = Run.objects.select_related("scenario", "profile")
    value = str(value).strip()
    try:
        if value == "latest":
            run = runs.order_by("-pk").first()
        elif value.isdigit():
            run = runs.filter(pk=int(value)).first()
        else:
            run = runs.filter(uuid=uuid.UUID(value)).first()
    except ValueError:
        run = None
    if run is None:
        raise CommandError(f"there is no run {value!r} (give its id, its uuid, or 'latest')")
    return run


def add_run_argument(parser: argparse.ArgumentParser, **kwargs) -> None:
    """`--run` as every command spells it (kwargs: default=, required=)."""
    parser.add_argument("--run", help=HELP, **kwargs)


def add_output_argument(parser: argparse.ArgumentParser, help: str, **kwargs) -> None:
    """`-o/--output`, the file (or folder) a command writes, as every command spells it."""
    parser.add_argument("-o", "--output", help=help, **kwargs)
