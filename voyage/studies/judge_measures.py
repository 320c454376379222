"""The measures a study's judging gives (`study create --judge RUBRIC@DAY`; registered as `judge` in
measures.py): per run, for the rubric judged on day D,

- `judge_d<D>_<dimension>`: the mean score over the day's judged agents (missing scores left out);
- `judge_d<D>_scene_<dimension>` (with RUBRIC@DAY:scenes=N): the mean score over the day's judged
  scenes, for each dimension that reads a scene;
- `judge_d<D>_overall`: the mean over the dimensions (the agents'), each by its weight in the rubric;
- `judge_d<D>_missing`: the share of the day's judgements recorded as missing;
- `judge_d<D>_verdict`: the judge's verdict on itself in that job (reliable, doubtful, unreliable),
  carried with the scores: not compared itself, it goes with every comparison of its day's columns
  (the worst verdict over the runs compared) and beside them in the report.

One value per run (per="run"), the day in the name, from the study's latest job of that run and day."""
from __future__ import annotations

import re
from collections import defaultdict

from voyage.studies.study_judging import rubric_of, scene_dimensions, study_jobs

SCENE = "scene:"  # a scene's rows are keyed scene:ROOM@A-B in `agent`

VERDICTS = ("reliable", "doubtful", "unreliable")  # from best to worst
COLUMN = re.compile(r"^judge_d(\d+)_(.+)$")
OWN = ("overall", "missing", "verdict")


def job_values(job, rubric, scenes: bool = False) -> dict:
    """One job's columns (without the measure's prefix); `scenes`: its study asked for scenes."""
    scores: dict[str, list[float]] = defaultdict(list)
    missing = 0
    for s in job.scores:
        if s["score"] is None:
            missing += 1
        else:
            scene = "scene_" if s["agent"].startswith(SCENE) else ""
            scores[scene + s["dimension"]].append(float(s["score"]))
    out = {}
    for d in rubric.dimensions:
        given = scores.get(d.id)
        out[f"d{job.day}_{d.id}"] = round(sum(given) / len(given), 4) if given else None
    if scenes:
        for d in scene_dimensions(rubric):
            given = scores.get(f"scene_{d.id}")
            out[f"d{job.day}_scene_{d.id}"] = round(sum(given) / len(given), 4) if given else None
    means = [(out[f"d{job.day}_{d.id}"], d.weight) for d in rubric.dimensions if out[f"d{job.day}_{d.id}"] is not None]
    weight = sum(w for _, w in means)
    out[f"d{job.day}_overall"] = round(sum(m * w for m, w in means) / weight, 4) if weight else None
    out[f"d{job.day}_missing"] = round(missing / len(job.scores), 4) if job.scores else None
    out[f"d{job.day}_verdict"] = job.verdict + (" (scripted)" if job.scripted else "")
    return out


def _load(study, run_ids) -> dict[int, dict]:
    specs = {(s["day"], s["rubric"]): s for s in study.judging or []}
    rubrics = {key: rubric_of(s) for key, s in specs.items()}
    out: dict[int, dict] = defaultdict(dict)
    for job in study_jobs(study, run_ids).order_by("id"):  # the latest of a run and day stands
        rubric = rubrics.get((job.day, job.rubric))
        if rubric is not None:
            out[job.run_id].update(job_values(job, rubric, bool(specs[job.day, job.rubric].get("scenes"))))
    return out


def judge_values(tables, run_id: int) -> dict:
    """The run's judging columns; loaded once for all the tables' runs (of one study)."""
    cache = tables.__dict__.get("_judge_values")
    if cache is None:
        from voyage.studies.models import StudyRun

        studies = {m.study for m in StudyRun.objects.filter(run_id__in=tables.run_ids).select_related("study")}
        cache = {}
        for study in studies:
            cache.update(_load(study, tables.run_ids))
        tables.__dict__["_judge_values"] = cache
    return cache.get(run_id, {})


def is_verdict(column: str) -> bool:
    return column.startswith("judge_d") and column.endswith("_verdict")


def verdict_column(column: str) -> str | None:
    """The verdict column that goes with a judging column (None for any other column)."""
    found = COLUMN.match(column)
    return f"judge_d{found.group(1)}_verdict" if found else None


def worst(verdicts) -> str | None:
    """The worst verdict among those given ("reliable (scripted)" counts as reliable, and stays marked)."""
    given = [v for v in verdicts if isinstance(v, str) and v]
    if not given:
        return None
    return max(given, key=lambda v: (VERDICTS.index(v.split(" ")[0]) if v.split(" ")[0] in VERDICTS else 3,
                                     "scripted" in v))


def scale_columns(study) -> set[str]:
    """The judging columns that are the mean of a rating scale (compared by Cliff's delta)."""
    columns = set()
    for spec in study.judging or []:
        rubric = rubric_of(spec)
        columns |= {f"judge_d{spec['day']}_{d.id}" for d in rubric.dimensions} | {f"judge_d{spec['day']}_overall"}
        if spec.get("scenes"):
            columns |= {f"judge_d{spec['day']}_scene_{d.id}" for d in scene_dimensions(rubric)}
    return columns
