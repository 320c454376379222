"""When memory must be compacted or folded. Pure: counts and sizes in, a decision out.

Compaction looks at the rows older than the hot window that no summary covers yet:
`compaction_memory_count` rows or `compaction_soft_chars` characters queue a job (the tick goes on);
`compaction_hard_chars` characters compact before the action call. Summaries themselves are kept
within a budget by folding the oldest into an era summary, recursively.
"""
from __future__ import annotations

from dataclasses import dataclass

SOFT, HARD = "soft", "hard"

# The active (unfolded) summaries an agent's context may carry. Past either figure the oldest half
# folds into one era summary one level up; eras fold again the same way. An agent writes three or
# four summaries a day (one per 200 rows past its hot window): so its past is an era or two and the
# latest summaries, and by its second day every agent has an era.
SUMMARY_BUDGET_COUNT = 2
SUMMARY_BUDGET_CHARS = 1_600
# One compaction call reads at most this much: a hard compaction of 800,000 characters becomes
# several summaries (then folded), never one prompt no model could take.
BATCH_CHARS = 60_000


@dataclass
class MemoryLoad:
    """An agent's rows after the last row a summary covers (`covered_upto`), kept in memory by
    RunWorld and grown by every row the tick writes, so the check costs no query."""

    covered_upto: int = 0
    count: int = 0
    chars: int = 0

    def older(self, hot_count: int, hot_chars: int) -> tuple[int, int]:
        """Rows and characters older than the hot window and not summarised. The hot window is the
        newest rows, never covered by a summary, so it is the tail of what is uncovered."""
        if self.count <= hot_count:
            return 0, 0
        return self.count - hot_count, max(0, self.chars - hot_chars)


def compaction_due(rows: int, chars: int, *, memory_count: int, soft_chars: int, hard_chars: int) -> str | None:
    if chars >= hard_chars:
        return HARD
    if rows >= memory_count or chars >= soft_chars:
        return SOFT
    return None


def batches(rows: list[tuple], max_rows: int, max_chars: int = BATCH_CHARS) -> list[list[tuple]]:
    """Split rows (each with its text last) into consecutive batches within both limits."""
    out, current, size = [], [], 0
    for row in rows:
        n = len(row[-1])
        if current and (len(current) >= max_rows or size + n > max_chars):
            out.append(current)
            current, size = [], 0
        current.append(row)
        size += n
    if current:
        # a short tail joins the batch before it rather than make a summary of a handful of rows
        if out and len(current) < max_rows // 4 and size + sum(len(r[-1]) for r in out[-1]) <= max_chars:
            out[-1].extend(current)
        else:
            out.append(current)
    return out


def fold_count(sizes: list[int], budget_count: int = SUMMARY_BUDGET_COUNT,
               budget_chars: int = SUMMARY_BUDGET_CHARS) -> int:
    """How many of the oldest active summaries (sizes oldest first) to fold into an era now: 0
    while within budget, else the oldest half (at least two)."""
    if len(sizes) < 2 or (len(sizes) <= budget_count and sum(sizes) <= budget_chars):
        return 0
    return max(2, len(sizes) // 2)
