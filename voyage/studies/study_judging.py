"""A study's judging (`study create --judge RUBRIC@DAY`, repeatable): the rubric's judge put to one day of
every run of the study (not the base runs its arms fork from), once the run has finished and every
memory job of that day is done, as a judging job (voyage.judging.job: an instrument, it leaves no trace in
the run). Each dimension of the rubric becomes a measure (judge_measures.py), carried with the job's
verdict, so `study compare` gives intervals and tests on believability between arms.

Which model judges: each run's `judge` route, else its profile, else the offline scripted judge (a
study varies it with `--vary profile_routes=judge=NAME,...` or sets it with `--set`).

Taken by whoever takes the study's surveys (study_surveys.take_due): the worker after each settled chunk
and its per-minute catch-up, `study run` at its end, `study results` before it writes the table; a day
already judged for the study (same run, day and rubric) is not judged again."""
from __future__ import annotations

import logging
import time
from pathlib import Path

from memories.attempts import catch_up_run

from voyage.judging.job import MAX_SCENES, JudgeError, judge_run, save
from voyage.judging.packets import PacketError
from voyage.judging.rubric import DEFAULT, RubricError, parse_rubric
from voyage.instruments.models import Judging
from voyage.models import Run
from voyage.studies.models import Study, StudyRun
from world.time import TICKS_PER_DAY

log = logging.getLogger("voyage.studies")
MADE_BY = "study {name}"  # kept in the job's summary, so the study finds its own jobs
SHIPPED = DEFAULT.parent  # rubrics named without a path: voyage/judging/rubrics/NAME.yaml
MAX_JUDGING = 10


class StudyJudgeError(ValueError):
    """A --judge that cannot be used; the message names it."""


def parse_judge(spec: str, files: bool = True) -> dict:
    """RUBRIC@DAY[:scenes=N] -> {"day": D, "rubric": its name, "source": what was given, "text": its YAML,
    and "scenes": N when N > 0 (the day's N busiest scenes judged too, as `manage.py judge --scenes N`)}.
    RUBRIC: `default`, the name of a rubric shipped in voyage/judging/rubrics, or (`files`: the command
    line) a rubric YAML file."""
    source, sep, day = spec.rpartition("@")
    source = source.strip()
    day, colon, extra = day.partition(":")
    if not sep or not source or not day.strip().isdigit() or int(day) < 1:
        raise StudyJudgeError(f"--judge {spec!r}: write RUBRIC@DAY (RUBRIC: default, a shipped rubric's name"
                              f"{' or a YAML file' if files else ''}; DAY from 1), e.g. default@1")
    key, _, count = extra.partition("=")
    if colon and (key.strip() != "scenes" or not count.strip().isdigit() or int(count) > MAX_SCENES):
        raise StudyJudgeError(f"--judge {spec!r}: after RUBRIC@DAY write :scenes=N, N from 0 to {MAX_SCENES} "
                              "(the day's N busiest scenes judged too), e.g. default@1:scenes=2")
    scenes = int(count) if colon else 0
    shipped = SHIPPED / f"{source}.yaml"
    if "/" not in source and shipped.exists():
        path = shipped
    elif files:
        path = Path(source)
    else:
        known = ", ".join(sorted(p.stem for p in SHIPPED.glob("*.yaml")))
        raise StudyJudgeError(f"judge {spec!r}: there is no shipped rubric {source!r} (shipped: {known})")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise StudyJudgeError(f"--judge {spec!r}: cannot read {path} ({getattr(exc, 'strerror', None) or exc})") \
            from None
    try:
        rubric = parse_rubric(text, path.name)
    except RubricError as exc:
        raise StudyJudgeError(f"--judge {spec!r}: {exc}") from None
    if scenes and not scene_dimensions(rubric):
        raise StudyJudgeError(f"--judge {spec!r}: rubric {rubric.name!r} has no dimension that reads scene, so "
                              "it cannot judge scenes")
    return {"day": int(day), "rubric": rubric.name, "source": source, "text": text,
            **({"scenes": scenes} if scenes else {})}


def scene_dimensions(rubric) -> list:
    """The rubric's dimensions a scene is asked (those that read `scene`)."""
    return [d for d in rubric.dimensions if "scene" in d.reads]


def rubric_of(spec: dict):
    return parse_rubric(spec["text"], spec["rubric"])


def days_of(ticks: int) -> int:
    return max(1, -(-ticks // TICKS_PER_DAY))


def check_judging(specs: list[dict], target_ticks: int) -> list[dict]:
    """Each day within the runs; one rubric a day (the measures' columns are named by day and dimension)."""
    if len(specs) > MAX_JUDGING:
        raise StudyJudgeError(f"at most {MAX_JUDGING} --judge in a study ({len(specs)} given)")
    last, seen = days_of(target_ticks), set()
    for s in specs:
        if not 1 <= s["day"] <= last:
            raise StudyJudgeError(f"--judge {s['source']}@{s['day']}: the runs go to tick {target_ticks} (day "
                                  f"{last}); judge a day from 1 to {last}")
        if s["day"] in seen:
            raise StudyJudgeError(f"--judge {s['source']}@{s['day']}: day {s['day']} is judged twice; one rubric a day")
        seen.add(s["day"])
    return specs


def study_jobs(study: Study, run_ids=None):
    """The judging jobs the study made, newest first."""
    found = Judging.objects.filter(summary__made_by=MADE_BY.format(name=study.name))
    return found.filter(run_id__in=run_ids) if run_ids is not None else found


def judge_due(study: Study) -> int:
    """Judge each finished run of the study on the days it has not been judged yet; how many jobs were
    made. A day that cannot be judged (fewer than two agents with rows) is logged and left."""
    if not getattr(study, "judging", None):
        return 0
    made = 0
    members = StudyRun.objects.filter(study=study, is_base=False, run__state=Run.FINISHED).select_related(
        "run__scenario", "run__profile")
    for member in members:
        for spec in study.judging:
            made += _judge(study, member.run, spec)
    return made


def _judge(study: Study, run: Run, spec: dict) -> int:
    made_by = MADE_BY.format(name=study.name)
    day = spec["day"]
    if run.tick <= (day - 1) * TICKS_PER_DAY or study_jobs(study, [run.pk]).filter(
            day=day, rubric=spec["rubric"]).exists():
        return 0
    # The memory jobs of its ticks up to the day's end are what the agents remembered that day: done (or
    # waited for) first, so the packets do not depend on how far the memory worker got.
    catch_up_run(run.pk, before_tick=min(run.tick, day * TICKS_PER_DAY) + 1)
    start = time.process_time()
    try:
        result = judge_run(run, rubric_of(spec), day, scenes=spec.get("scenes", 0))
    except (JudgeError, PacketError) as exc:
        log.warning("study %s: run %s not judged on day %s: %s", study.pk, run.pk, day, exc)
        return 0
    save(result, time.process_time() - start, made_by=made_by)
    return 1
