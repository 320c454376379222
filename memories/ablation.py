"""Memory ablations: a run parameter (`Run.memory`) that switches parts of memory off, so a study can
rank architectures as Generative Agents ranked theirs (`--vary memory=full,no_reflection,...`).
Pure: the table of what each setting turns off, and the one question the engine and the memory
code ask (`off(run, part)`).

Parts: `summaries` (compaction and eras: older rows are never summarised), `reflection` (no
reflection, scheduled or spiked), `dreams`, `trust` (the trust ledger is never assessed), `recall`
(no older row is recalled into a prompt). `hot_window_only` turns all of them off: the agent has its
hot window and its identity, nothing else."""
from __future__ import annotations

from voyage.models import MEMORY_PARTS as PARTS

FULL, HOT_WINDOW_ONLY = "full", "hot_window_only"
SETTINGS = {FULL: frozenset(), **{f"no_{part}": frozenset({part}) for part in PARTS},
            HOT_WINDOW_ONLY: frozenset(PARTS)}


def off(run, part: str) -> bool:
    """Whether `run`'s memory setting turns `part` off (a run without the field: nothing is off)."""
    return part in SETTINGS.get(getattr(run, "memory", FULL) or FULL, frozenset())
