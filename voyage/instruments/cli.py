"""What the instruments' commands share: the run a command line names."""
from __future__ import annotations

from django.core.management.base import CommandError

from voyage.models import Run


def named_run(value: str) -> Run:
    """The run with this id, or the newest for 'latest'; CommandError if there is none."""
    runs = Run.objects.select_related("scenario", "profile").order_by("-pk")
    run = runs.first() if value == "latest" else runs.filter(pk=value).first() if value.isdigit() else None
    if run is None:
        raise CommandError(f"no run {value!r}")
    return run
