"""A run named on the command line, by id or uuid."""
from __future__ import annotations

import uuid

from django.core.management.base import CommandError

from voyage.models import Run


def run_from_arg(value: str) -> Run:
    try:
        lookup = {"pk": int(value)} if value.isdigit() else {"uuid": uuid.UUID(value)}
        return Run.objects.select_related("scenario", "profile").get(**lookup)
    except (ValueError, Run.DoesNotExist):
        raise CommandError(f"there is no run {value!r} (give its id or uuid)") from None
