"""Comparing a study's cells, pure: the tidy rows grouped by cell (the axis values but the seed),
each measure's mean and spread over the seeds, on one day or day by day."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from voyage.studies.grid import SEED, cell_label


@dataclass(frozen=True)
class Stat:
    mean: float | None
    sd: float | None  # sample standard deviation over the seeds (None with fewer than two values)
    n: int

    def __str__(self) -> str:
        if self.sd is None:
            return readable(self.mean)
        return f"{readable(self.mean)} ± {readable(self.sd)}"


def readable(value: float | None) -> str:
    """12,010,000 / 31.37 / 0.07485: whole numbers from 100 up, four significant digits below."""
    if value is None:
        return "—"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.4g}"


def _number(value) -> float | None:
    if value is None or value == "":
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def stat(values) -> Stat:
    numbers = [v for v in (_number(x) for x in values) if v is not None]
    if not numbers:
        return Stat(None, None, 0)
    sd = statistics.stdev(numbers) if len(numbers) > 1 else None
    return Stat(statistics.fmean(numbers), sd, len(numbers))


def cell_of(row: dict, axes: list[str]) -> str:
    return cell_label({a: row[a] for a in axes if a != SEED})


def cells_in_order(rows: list[dict], axes: list[str]) -> list[str]:
    return list(dict.fromkeys(cell_of(r, axes) for r in rows))


def table(rows: list[dict], axes: list[str], measures: list[str], day: int) -> dict[str, dict[str, Stat]]:
    """{measure: {cell: Stat over the seeds}} on one day."""
    cells = cells_in_order(rows, axes)
    on_day = [r for r in rows if int(r["day"]) == day]
    return {m: {c: stat(r.get(m) for r in on_day if cell_of(r, axes) == c) for c in cells} for m in measures}


def series(rows: list[dict], axes: list[str], measure: str) -> dict[str, list[tuple[int, float]]]:
    """{cell: [(day, mean over seeds), ...]} for a chart, days with no value left out."""
    out = {}
    for c in cells_in_order(rows, axes):
        mine = [r for r in rows if cell_of(r, axes) == c]
        days = sorted({int(r["day"]) for r in mine})
        points = [(d, stat(r.get(measure) for r in mine if int(r["day"]) == d).mean) for d in days]
        out[c] = [(d, m) for d, m in points if m is not None]
    return out
