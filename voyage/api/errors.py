"""Error bodies, declared on every operation so the schema says what a client can get back."""
from __future__ import annotations

from typing import Any

from ninja import Schema


class Error(Schema):
    detail: str


class Invalid(Schema):
    """422: what was wrong, item by item (`loc` names the field)."""

    detail: list[dict[str, Any]]


def errors(*extra: int) -> dict:
    """The error responses every operation can give, plus `extra` (409: the run's state forbids it)."""
    out = {400: Error, 401: Error, 403: Error, 404: Error, 422: Invalid}
    for status in extra:
        out[status] = Error
    return out


def invalid(field_errors: dict[str, list[str]]) -> dict:
    return {"detail": [{"loc": ["body", field], "msg": " ".join(msgs), "type": "value_error"}
                       for field, msgs in field_errors.items()]}
