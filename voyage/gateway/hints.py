"""Structured facts handed to the offline policy beside the prompt. Each holds only what the
prompt itself shows the agent: the offline policy may read it instead of parsing prose."""
from __future__ import annotations

from dataclasses import dataclass

from world.rules.perception import Situation


@dataclass(frozen=True)
class ActionHints:
    situation: Situation
    display_name: str | None  # None below rung 1
    home_name: str  # where it woke; its own memory says so
    cues: frozenset[str]  # "wind_down", "fatigue"


@dataclass(frozen=True)
class TextHints:
    """For writing purposes (reflection, bulletin, summaries...): the lines the prompt lists."""

    lines: tuple[str, ...]
    subject: str = ""  # who is writing, as the prompt names them
