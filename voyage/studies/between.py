"""A study's arms compared on one measure and day: each arm (a cell of the grid: its axis values but
the seed) against the baseline arm, with voyage.studies.stats. What `study compare`, its CSV and the
comparison page show. The resampling is seeded from the study's name, the measure, the day and the
arm, so the numbers repeat."""
from __future__ import annotations

import csv
import dataclasses

from voyage.studies import compare as cells
from voyage.studies.arms import INTERVENTION, NO_INTERVENTION
from voyage.studies.grid import SEED
from voyage.studies.measures import REGISTRY, Measure
from voyage.studies.results import study_rows
from voyage.studies.stats import KEYS, Comparison, compare, seed_for
from voyage.studies.judge_measures import is_verdict, verdict_column, worst
from voyage.studies.judge_measures import scale_columns as judged_scales
from voyage.studies.survey_measures import scale_columns


class CompareError(ValueError):
    """A measure, day or baseline the study does not have; the message names what it has."""


def measure_of(column: str) -> Measure | None:
    """The declared measure a column comes from (`words_shout` is the `words` measure's)."""
    name = column
    while name and name not in REGISTRY:
        name = name.rpartition("_")[0]
    return REGISTRY.get(name)


def arms_of(rows: list[dict], axes: list[str]) -> list[str]:
    return cells.cells_in_order(rows, [a for a in axes if a != SEED])


def pick_baseline(arms: list[str], wanted: str | None) -> str:
    """The arm named (its full label, `intervention=none`, or, with one varying axis, its value `none`);
    by default the arm without an intervention, else the first."""
    if not arms:
        raise CompareError("the study has no measured runs yet")
    if wanted is None or wanted == "":
        plain = f"{INTERVENTION}={NO_INTERVENTION}"
        return next((a for a in arms if plain in a.split(", ")), arms[0])
    if wanted in arms:
        return wanted
    by_value = [a for a in arms if a.partition("=")[2] == wanted and ", " not in a]
    if len(by_value) == 1:
        return by_value[0]
    raise CompareError(f"--baseline {wanted!r} is not an arm of the study (arms: {'; '.join(arms)})")


def pick_day(rows: list[dict], day) -> int:
    days = sorted({int(r["day"]) for r in rows})
    if not days:
        raise CompareError("the study has no measured runs yet")
    if day is None or day == "":
        return days[-1]
    try:
        chosen = int(day)
    except (TypeError, ValueError):
        raise CompareError(f"--day {day!r} is not a whole number") from None
    if chosen not in days:
        raise CompareError(f"day {chosen} has no values (days: {', '.join(map(str, days))})")
    return chosen


def between(study_name: str, rows: list[dict], axes: list[str], column: str, day: int,
            baseline: str, scale: bool | None = None) -> list[Comparison]:
    """Every arm but the baseline against it, in the grid's order. `scale`: the column is a rating
    scale (None: as its measure declares)."""
    arms = arms_of(rows, axes)
    plain = [a for a in axes if a != SEED]
    on_day = [r for r in rows if int(r["day"]) == day]
    values = {arm: [r.get(column) for r in on_day if cells.cell_of(r, plain) == arm] for arm in arms}
    if scale is None:
        scale = bool(getattr(measure_of(column), "scale", False))
    found = [compare(column, day, arm, values[arm], baseline, values[baseline], scale=scale,
                     seed=seed_for(study_name, column, day, arm, baseline))
             for arm in arms if arm != baseline]
    carried = verdict_column(column)
    if carried is None or carried == column:
        return found
    verdicts = {arm: [r.get(carried) for r in on_day if cells.cell_of(r, plain) == arm] for arm in arms}
    return [dataclasses.replace(c, verdict=worst(verdicts[c.arm] + verdicts[baseline]) or "not judged")
            for c in found]


def compared(header: list[str]) -> list[str]:
    """The columns of the results that arms are compared on: every measure's, but a judge's verdict
    (words, carried with its day's scores instead)."""
    return [c for c in header[header.index("day") + 1:] if not is_verdict(c)]


def study_comparisons(study, column: str, day=None, baseline: str | None = None) -> list[Comparison]:
    """`study compare`: only the measure asked for is evaluated, for every run of the study."""
    declared = measure_of(column)
    if is_verdict(column):
        raise CompareError(f"--measure {column!r} is the judge's verdict, not a number: it is carried with every "
                           f"comparison of that day's scores (compare {column[:-len('verdict')]}<dimension> or "
                           f"{column[:-len('verdict')]}overall)")
    if declared is None:
        raise CompareError(f"--measure {column!r} is not a measure (measures: {', '.join(REGISTRY)})")
    header, rows = study_rows(study, {declared.name: declared})
    if column not in header:
        columns = [c for c in header if c == declared.name or c.startswith(declared.name + "_")]
        raise CompareError(f"--measure {column!r} is not a column of the results (the {declared.name} measure "
                           f"gives {', '.join(columns) or 'none yet'})")
    arms = arms_of(rows, study.axes)
    return between(study.name, rows, study.axes, column, pick_day(rows, day), pick_baseline(arms, baseline),
                   scale=is_scale(study, column))


def all_comparisons(study, day=None, baseline: str | None = None) -> list[Comparison]:
    """`study compare --all`: every column of the results, each arm against the baseline."""
    header, rows = study_rows(study)
    arms = arms_of(rows, study.axes)
    chosen, base = pick_day(rows, day), pick_baseline(arms, baseline)
    return [c for column in compared(header)
            for c in between(study.name, rows, study.axes, column, chosen, base, scale=is_scale(study, column))]


def is_scale(study, column: str) -> bool:
    """Whether arms are compared on `column` as a rating scale: a measure declared so, or the mean of
    a survey's scale item."""
    return (bool(getattr(measure_of(column), "scale", False)) or column in scale_columns(study)
            or column in judged_scales(study))


def write_csv(comparisons: list[Comparison], out) -> None:
    judged = any(c.verdict is not None for c in comparisons)
    writer = csv.DictWriter(out, fieldnames=(*KEYS, "verdict") if judged else KEYS, lineterminator="\n")
    writer.writeheader()
    for c in comparisons:
        writer.writerow({k: "" if v is None else v for k, v in c.line().items()})
