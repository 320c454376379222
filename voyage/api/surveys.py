"""Surveys through the API: put a questionnaire (YAML, or its JSON form) to a run's agents as they
stood at a tick, list a run's surveys, read one's answers (one per agent × item). Staff session (with
the CSRF header) or API token, as every operation (voyage/api/auth.py)."""
from __future__ import annotations

from datetime import datetime
from typing import Any, Optional

from django.shortcuts import get_object_or_404
from ninja import Field, Path, Router, Schema, Status

from voyage.api.errors import errors
from voyage.api.runs import RunId, get_run
from voyage.api.schemas import MAX_ID, MAX_TICKS, Body
from voyage.instruments.models import Survey, ValidityReport
from voyage.instruments.questionnaire import QuestionnaireError, read_questionnaire
from voyage.instruments.survey_table import tidy_rows
from voyage.instruments.standard_instruments import UnknownInstrument
from voyage.instruments.surveys import SurveyError, take_survey
from voyage.instruments.validity import save_report, validity

router = Router(tags=["surveys"])
MAX_QUESTIONNAIRE = 50_000


class SurveyIn(Body):
    questionnaire: str = Field(min_length=1, max_length=MAX_QUESTIONNAIRE, description="the questionnaire's YAML "
                               "(title and items; see docs/surveys.md); JSON is YAML too")
    tick: Optional[int] = Field(None, ge=0, le=MAX_TICKS, description="as the agents stood at this tick; null: now")
    agents: list[str] = Field([], max_length=10_000, description="persona keys; empty: every agent alive then")


class SurveyOut(Schema):
    id: int
    run: int
    tick: int
    title: str
    questionnaire: dict[str, Any]
    agents: int
    scripted: bool = Field(description="answered by the offline scripted policy, not a language model")
    made_by: str
    asked_at: datetime


class AnswerOut(Schema):
    run: int
    tick: int
    agent: str
    rung: int
    item: str
    kind: str
    answer: str = Field(description="the answer as the CSV has it (several choices: a JSON list; missing: empty); "
                                    "untrusted text: show it escaped")
    missing_reason: str


class SurveyAnswersOut(SurveyOut):
    answers: list[AnswerOut]


def survey_out(s: Survey) -> dict:
    return {"id": s.pk, "run": s.run_id, "tick": s.tick, "title": s.title, "questionnaire": s.questionnaire,
            "agents": s.agents, "scripted": s.scripted, "made_by": s.made_by, "asked_at": s.asked_at}


def _invalid(problems: list[str]):
    return Status(422, {"detail": [{"loc": ["body"], "msg": p, "type": "value_error"} for p in problems]})


@router.post("/runs/{run_id}/surveys", response={201: SurveyAnswersOut, **errors()},
             summary="Put a questionnaire to the run's agents as they stood at a tick (never changes the run)")
def add_survey(request, body: SurveyIn, run_id: int = RunId):
    run = get_run(run_id)
    try:
        survey = take_survey(run, read_questionnaire(body.questionnaire), body.tick, body.agents or None,
                             asked_by=request.auth)
    except QuestionnaireError as exc:
        return _invalid(exc.problems)
    except SurveyError as exc:
        return _invalid([str(exc)])
    return Status(201, {**survey_out(survey), "answers": tidy_rows(survey)})


@router.get("/runs/{run_id}/surveys", response={200: list[SurveyOut], **errors()},
            summary="The run's surveys, newest first")
def surveys(request, run_id: int = RunId):
    return [survey_out(s) for s in Survey.objects.filter(run=get_run(run_id)).order_by("-id")]


@router.get("/runs/{run_id}/surveys/{survey_id}", response={200: SurveyAnswersOut, **errors()},
            summary="A survey and its answers: one per agent × item")
def survey(request, run_id: int = RunId, survey_id: int = Path(..., ge=1, le=MAX_ID)):
    found = get_object_or_404(Survey, pk=survey_id, run_id=run_id)
    return {**survey_out(found), "answers": tidy_rows(found)}


class ValidityIn(Body):
    instrument: str = Field(min_length=1, max_length=40, description="a standard instrument: ipip-neo-120, gss-trust")
    tick: Optional[int] = Field(None, ge=0, le=MAX_TICKS, description="as the agents stood at this tick; null: now")
    retest_tick: Optional[int] = Field(None, ge=0, le=MAX_TICKS, description="ask again here for the retest ICC")
    page_size: Optional[int] = Field(None, ge=1, le=50, description="items a call; null: the answering model "
                                     "profile's instrument_page_size (30 on the offline policy)")
    year: Optional[int] = Field(None, ge=1972, le=2100, description="the year of the bundled GSS shares")


class ValidityOut(Schema):
    id: int
    run: int
    instrument: str
    tick: int
    retest_tick: Optional[int]
    report: dict[str, Any] = Field(description="per-domain alpha, omega, retest_icc, persona_r (each with its "
                                   "interval and people's figure), persona_consistency, references (tv_distance, "
                                   "wasserstein); scores per agent (untrusted model output went into them)")
    made_by: str
    made_at: datetime


def validity_out(v: ValidityReport) -> dict:
    return {"id": v.pk, "run": v.run_id, "instrument": v.instrument, "tick": v.tick, "retest_tick": v.retest_tick,
            "report": v.report, "made_by": v.made_by, "made_at": v.made_at}


@router.post("/runs/{run_id}/validity", response={201: ValidityOut, **errors()},
             summary="Ask a standard instrument of the run's agents and measure it against people (never changes "
                     "the run)")
def add_validity(request, body: ValidityIn, run_id: int = RunId):
    run = get_run(run_id)
    try:
        report = validity(run, body.instrument, at_tick=body.tick, retest_tick=body.retest_tick,
                          page_size=body.page_size, year=body.year)
    except (UnknownInstrument, SurveyError) as exc:
        return _invalid([str(exc)])
    who = request.auth.get_username() if hasattr(request.auth, "get_username") else "api"
    return Status(201, validity_out(save_report(run, report, who)))


@router.get("/runs/{run_id}/validity", response={200: list[ValidityOut], **errors()},
            summary="The run's validity reports, newest first")
def list_validity(request, run_id: int = RunId):
    run = get_run(run_id)
    return [validity_out(v) for v in ValidityReport.objects.filter(run=run).order_by("-id")]
