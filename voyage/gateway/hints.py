"""Structured facts handed to the offline policy beside the prompt. Each holds only what the
prompt itself shows the agent: the offline policy may read it instead of parsing prose."""
from __future__ import annotations

from dataclasses import dataclass

from world.rules.perception import Situation


@dataclass(frozen=True)
class ActionHints:
    situation: Situation
    display_name: str | None  # None below rung 1
    home_name: str | None  # its cabin, from rung 1 (below, it woke "in a place you do not know")
    cues: frozenset[str]  # "wind_down", "fatigue"


@dataclass(frozen=True)
class TextHints:
    """For writing purposes (reflection, bulletin, summaries...): the lines the prompt lists."""

    lines: tuple[str, ...]
    subject: str = ""  # who is writing, as the prompt names them


@dataclass(frozen=True)
class RowsHints:
    """For the memory purposes (compaction, era, dream, diary, importance): the agent's OWN rows,
    exactly as its prompt lists them, plus the few facts the prompt states beside them."""

    rows: tuple[tuple[int, str, int, str], ...]  # (tick, kind, importance, text)
    subject: str = ""  # how the prompt names the agent ("Eleanor Vance", or "the sleeper" below rung 1)
    location: str = ""  # diary: where it ends the day
    rooms: tuple[str, ...] = ()  # dream: rooms its rows name
    people: tuple[tuple[str, str, float], ...] = ()  # dream: its own trust ledger (name, label, score)


@dataclass(frozen=True)
class TrustHints:
    """For a trust call: per person the agent dealt with, its current entry and the agent's own
    rows that name them."""

    others: tuple[tuple[str, str, float, int, tuple[str, ...]], ...]  # (name, label, score, interactions, lines)
