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
from voyage.instruments.models import Survey
from voyage.instruments.questionnaire import QuestionnaireError, read_questionnaire
from voyage.instruments.survey_table import tidy_rows
from voyage.instruments.surveys import SurveyError, take_survey

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
