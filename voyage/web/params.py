"""Query-string parameters of the dashboards, checked where they enter."""
from __future__ import annotations

from django.core.exceptions import BadRequest


def int_param(request, name: str) -> int | None:
    """A whole-number parameter, or None when absent; anything else is a 400 naming the parameter."""
    value = request.GET.get(name)
    if value in (None, ""):
        return None
    try:
        return int(value)
    except ValueError:
        raise BadRequest(f"{name} must be a whole number, not {value!r}")
