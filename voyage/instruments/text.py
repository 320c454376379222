"""Staff's words as they enter an instrument (a question, what happens, a planted memory): checked
once at the edge, with a message naming the field."""
from __future__ import annotations


def clean_text(value, *, field: str, empty: str, limit: int, error: type[Exception]) -> str:
    """`value` stripped, NULs made spaces; `error` naming `field` if it is empty or too long."""
    if not isinstance(value, str) or not value.strip():
        raise error(f"{field}: {empty} (it is empty)")
    value = value.replace("\x00", " ").strip()
    if len(value) > limit:
        raise error(f"{field}: at most {limit} characters ({len(value)} given)")
    return value
