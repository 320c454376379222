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

from voyage.gateway.base import GatewayConfigError
from voyage.instruments.administer import administer, sheets
from voyage.instruments.models import Questionnaire, Survey
from voyage.instruments.persona_rating import persona_ratings
from voyage.instruments.standard_instruments import UnknownInstrument, instrument
from voyage.instruments.questionnaire import QuestionnaireError, from_dict, read_questionnaire
from voyage.instruments.surveys import SurveyError, digest, take_survey
from voyage.models import Run
from voyage.studies.models import Study, StudyRun
from voyage.studies.study_judging import judge_due
from world.models import AgentState

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


def parse_instrument(spec: str) -> dict:
    """NAME@TICK (a standard instrument: ipip-neo-120, gss-trust) -> {"tick": T, "instrument": NAME}."""
    name, sep, tick = spec.rpartition("@")
    if not sep or not name.strip() or not tick.strip().isdigit():
        raise StudySurveyError(f"--instrument {spec!r}: write NAME@TICK, e.g. ipip-neo-120@400")
    try:
        instrument(name.strip())
    except UnknownInstrument as exc:
        raise StudySurveyError(f"--instrument {spec!r}: {exc}") from None
    return {"tick": int(tick), "instrument": name.strip()}


def questionnaires(surveys: list[dict]) -> list[dict]:
    """The study's questionnaire surveys (its standard instruments are kept in the same list)."""
    return [s for s in surveys or [] if "questionnaire" in s]


def check_surveys(surveys: list[dict], target_ticks: int) -> list[dict]:
    """The study's surveys, checked: each tick within the runs, no item id twice at one tick (the
    measures' columns are named by tick and item)."""
    if len(surveys) > MAX_SURVEYS:
        raise StudySurveyError(f"at most {MAX_SURVEYS} surveys in a study ({len(surveys)} given)")
    seen: dict[int, set[str]] = {}
    for s in surveys:
        if "instrument" in s:
            if not 0 <= s["tick"] <= target_ticks:
                raise StudySurveyError(f"--instrument {s['instrument']}@{s['tick']}: the runs go to tick "
                                       f"{target_ticks}; ask at a tick from 0 to {target_ticks}")
            continue
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
    A survey that cannot be made (everyone dead by its tick) is logged and left. The study's judging
    (study_judging.judge_due) is done here too, and counted."""
    taken = judge_due(study)
    if not study.surveys:
        return taken
    members = StudyRun.objects.filter(study=study, is_base=False, run__state=Run.FINISHED).select_related(
        "run__scenario", "run__profile")
    for member in members:
        for spec in study.surveys:
            if "instrument" in spec:
                taken += _administer_due(study, member.run, spec)
                continue
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


def _administer_due(study: Study, run: Run, spec: dict) -> int:
    """Ask a standard instrument of a finished run at its tick, unless a study already did (1 if asked)."""
    made_by = MADE_BY.format(name=study.name)
    if run.tick < spec["tick"] or Survey.objects.filter(run=run, tick=spec["tick"], instrument=spec["instrument"],
                                                        made_by=made_by).exists():
        return 0
    catch_up_run(run.pk, before_tick=spec["tick"] + 1)
    try:
        pages = administer(run, spec["instrument"], spec["tick"], made_by=made_by)
    except IntegrityError:
        return 0
    except SurveyError as exc:
        log.warning("study %s: run %s not asked %s at tick %s: %s", study.pk, run.pk, spec["instrument"],
                    spec["tick"], exc)
        return 0
    if instrument(spec["instrument"]).scaled:
        _rate_personas(study, run, pages[0].administration)
    return 1


def _rate_personas(study: Study, run: Run, administration: str) -> None:
    """The report's persona table (report_validity.py) needs the persona of each agent who answered rated
    by the run's judge: asked here, once per persona and judge (kept, so the study's other runs of the
    scenario reuse it; the calls recorded with this run, purpose survey)."""
    keys = {s.agent for s in sheets(run, administration)}
    agents = list(AgentState.objects.filter(run=run, persona__key__in=keys).select_related("persona"))
    try:
        persona_ratings(run, agents)
    except (SurveyError, GatewayConfigError) as exc:
        log.warning("study %s: run %s: personas not rated: %s", study.pk, run.pk, exc)
