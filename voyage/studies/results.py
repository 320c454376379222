"""A study's tidy table (one row per run and day: the study, the run, its state, every axis, the
seed, the day, then every measure) and its CSV, readable by pandas.read_csv as it is."""
from __future__ import annotations

import csv
import io

from voyage.studies.grid import SEED
from voyage.studies.measures import columns, evaluate
from voyage.studies.models import Study, StudyRun


def study_rows(study: Study, measures=None) -> tuple[list[str], list[dict]]:
    """(header, rows). Axes are columns in the study's order, the seed among them; runs that have
    not ticked yet have no rows, nor have the base runs intervention arms fork from (each arm holds
    its base's ticks before the fork). `measures`: only these ({name: Measure}; default: all)."""
    members = {m.run_id: m for m in StudyRun.objects.filter(study=study, is_base=False).select_related("run")
               .order_by("position")}
    measured = evaluate(list(members), measures)
    axes = [a for a in study.axes if a != SEED] + [SEED]
    header = ["study", "run_id", "run_state", *axes, "day", *columns(measured)]
    rows = []
    for row in measured:
        member = members[row["run_id"]]
        rows.append({"study": study.name, "run_id": row["run_id"], "run_state": member.run.state,
                     **{a: member.cell.get(a, "") for a in axes}, **row})
    return header, rows


def write_csv(study: Study, out) -> int:
    """Write the table to a text stream; returns the number of data rows. Empty cells for values a
    measure could not give (a rate with no denominator): pandas reads them as NaN."""
    header, rows = study_rows(study)
    writer = csv.DictWriter(out, fieldnames=header, extrasaction="raise", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in header})
    return len(rows)


def csv_text(study: Study) -> str:
    buffer = io.StringIO()
    write_csv(study, buffer)
    return buffer.getvalue()
