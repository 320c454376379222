"""A study's surveys (`study create --survey FILE@TICK`, repeatable): each questionnaire put to every
run of the study (not the base runs its arms fork from) as it stood at that tick, through
voyage.instruments.surveys, once the run has finished and every memory job its ticks up to T asked
for is done (settled here if a worker has not got to it yet). The answers become measures of the
results table (survey_measures.py).

Taken by whoever sees a run finish: the worker after each settled chunk and its per-minute catch-up
(scheduler), `study run` at its end, and `study results` before it writes the table; a survey already
taken (same run, tick and questionnaire) is not asked again."""
from __future__ import annotations

import logging

from django.db import IntegrityError

from memories.attempts import catch_up_run

from voyage.instruments.models import Questionnaire, Survey
from voyage.instruments.questionnaire import QuestionnaireError, from_dict, read_questionnaire
from voyage.instruments.surveys import SurveyError, digest, take_survey
from voyage.models import Run
from voyage.studies.models import Study, StudyRun

log = logging.getLogger("voyage.studies")
MADE_BY = "study {name}"
MAX_SURVEYS = 20


class StudySurveyError(ValueError):
    """A --survey that cannot be used; the message names it."""


def parse_survey(spec: str, saved: bool = False) -> dict:
    """FILE@TICK (or, `saved`, NAME@TICK: a questionnaire saved in the admin) -> {"tick": T,
    "questionnaire": its form}."""
    path, sep, tick = spec.rpartition("@")
    flag, what = ("survey", "NAME@TICK (a saved questionnaire's name)") if saved else ("--survey", "FILE@TICK")
    if not sep or not path.strip() or not tick.strip().isdigit():
        raise StudySurveyError(f"{flag} {spec!r}: write {what}, e.g. house@480")
    path = path.strip()
    if saved:
        found = Questionnaire.objects.filter(name=path).first()
        if found is None:
            known = ", ".join(Questionnaire.objects.values_list("name", flat=True)[:20]) or "none"
            raise StudySurveyError(f"survey {spec!r}: there is no saved questionnaire {path!r} (saved: {known})")
        text = found.text
    else:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise StudySurveyError(f"--survey {spec!r}: cannot read {path} ({getattr(exc, 'strerror', None) or exc})") \
                from None
    try:
        questionnaire = read_questionnaire(text)
    except QuestionnaireError as exc:
        raise StudySurveyError(f"{flag} {path}: " + "; ".join(exc.problems)) from None
    return {"tick": int(tick), "questionnaire": questionnaire.as_dict()}


def check_surveys(surveys: list[dict], target_ticks: int) -> list[dict]:
    """The study's surveys, checked: each tick within the runs, no item id twice at one tick (the
    measures' columns are named by tick and item)."""
    if len(surveys) > MAX_SURVEYS:
        raise StudySurveyError(f"at most {MAX_SURVEYS} surveys in a study ({len(surveys)} given)")
    seen: dict[int, set[str]] = {}
    for s in surveys:
        q = from_dict(s["questionnaire"])
        if not 0 <= s["tick"] <= target_ticks:
            raise StudySurveyError(f"--survey {q.title!r}@{s['tick']}: the runs go to tick {target_ticks}; "
                                   f"survey at a tick from 0 to {target_ticks}")
        ids = {i.id for i in q.items}
        twice = sorted(seen.setdefault(s["tick"], set()) & ids)
        if twice:
            raise StudySurveyError(f"--survey {q.title!r}@{s['tick']}: item {', '.join(twice)} is asked twice at "
                                   f"tick {s['tick']} (give the items different ids)")
        seen[s["tick"]] |= ids
    return surveys


def take_due(study: Study) -> int:
    """Ask each finished run of the study the surveys it has not answered yet; how many were taken.
    A survey that cannot be made (everyone dead by its tick) is logged and left."""
    if not study.surveys:
        return 0
    taken = 0
    members = StudyRun.objects.filter(study=study, is_base=False, run__state=Run.FINISHED).select_related(
        "run__scenario", "run__profile")
    for member in members:
        for spec in study.surveys:
            q = from_dict(spec["questionnaire"])
            if member.run.tick < spec["tick"] or Survey.objects.filter(
                    run=member.run, tick=spec["tick"], digest=digest(q)).exists():
                continue
            # The memory jobs its ticks up to T asked for are what the agents remembered at T: done (or
            # waited for) first, so a survey's answers do not depend on how far the memory worker got.
            catch_up_run(member.run_id, before_tick=spec["tick"] + 1)
            try:
                take_survey(member.run, q, spec["tick"], made_by=MADE_BY.format(name=study.name))
                taken += 1
            except IntegrityError:  # another worker took it meanwhile (survey_once_per_study_run)
                continue
            except SurveyError as exc:
                log.warning("study %s: run %s not surveyed at tick %s: %s", study.pk, member.run_id, spec["tick"], exc)
    return taken
