"""A survey's answers as a tidy table: one row per agent × item (run, tick, agent, rung, item, kind,
answer, missing_reason), in persona-key then questionnaire order; the CSV of `manage.py survey`, the
run's survey page and its download. Readable by pandas.read_csv as it is."""
from __future__ import annotations

import csv
import json

from voyage.instruments.models import Survey
from voyage.instruments.surveys import answers_of

COLUMNS = ("run", "tick", "agent", "rung", "item", "kind", "answer", "missing_reason")


def shown(value) -> str:
    """An answer as one CSV cell: a number or text as it is, several choices as a JSON list, missing
    as empty."""
    if value is None:
        return ""
    if isinstance(value, list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def tidy_rows(survey: Survey) -> list[dict]:
    return [{"run": survey.run_id, "tick": survey.tick, "agent": a.agent.persona.key, "rung": a.rung, "item": a.item,
             "kind": a.kind, "answer": shown(a.value), "missing_reason": a.missing_reason}
            for a in answers_of(survey)]


def write_csv(surveys, out) -> int:
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    n = 0
    for survey in surveys:
        for row in tidy_rows(survey):
            writer.writerow(row)
            n += 1
    return n
