"""Studies in the API: create (the same checks as `study create`), list, progress, and the tidy
results as CSV. Mounted on the NinjaAPI in voyage/api/site.py."""
from __future__ import annotations

from typing import Literal, Optional, Union

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from ninja import Field, Path, Query, Router, Schema, Status

from voyage.api.errors import errors
from voyage.api.schemas import MAX_ID, MAX_TICKS, Body, Page
from voyage.instruments.interventions import MAX_TEXT
from voyage.studies import scheduler
from voyage.studies.config import MAX_BUDGET_COST, StudyError, StudyPlan, create_study
from voyage.studies.grid import GridError, seed_count
from voyage.studies.models import Study
from voyage.studies.progress import study_progress
from voyage.studies.study_judging import StudyJudgeError, parse_judge
from voyage.studies.results import csv_text
from world.time import TICKS_PER_DAY

router = Router(tags=["studies"])
StudyId = Path(..., ge=1, le=MAX_ID)
Value = Union[int, float, str]
MAX_AXES, MAX_VALUES = 6, 50


class StudyInterventionIn(Body):
    """A value of the study's "intervention" axis: the run API's intervention, at a tick it must name."""

    kind: Literal["room_event", "memory", "object_place", "object_move", "object_remove", "persona"]
    tick: int = Field(..., ge=1, le=MAX_TICKS, description="the arms fork from their base run at the earliest "
                      "intervention's tick; each intervention is applied in its arm at its own tick")
    text: Optional[str] = Field(None, max_length=MAX_TEXT, description="what happens; the memory; a placed "
                                "object's description; a persona's new text")
    room: Optional[str] = Field(None, max_length=60, description="room_event, object_place, object_move: the room's key")
    how: Optional[Literal["sound", "sight"]] = Field(None, description="room_event: a loud sound (default) or a "
                                                     "visible change")
    agent: Optional[str] = Field(None, max_length=60, description="memory, persona: the agent's persona key")
    name: Optional[str] = Field(None, max_length=100, description="object_*: the object's name")
    field: Optional[Literal["history", "fear", "secret"]] = Field(None, description="persona: which text")


class StudyIn(Body):
    name: str = Field(..., min_length=1, max_length=120)
    scenario: str = Field("1912", max_length=50, description="the scenario's slug")
    ticks: Optional[int] = Field(None, ge=1, le=MAX_TICKS, description="each run's length in ticks (or give days)")
    days: Optional[float] = Field(None, gt=0, le=20_000)
    axes: dict[str, list[Value]] = Field(default_factory=dict, description='what varies, e.g. {"seed": [1, 2], '
                                         '"profile": ["offline"], "hot_memory_limit": [30, 50]}; "seeds": [N] is 1..N')
    shared: dict[str, Value] = Field(default_factory=dict, description='run parameters every run shares, e.g. '
                                     '{"schedule": "simultaneous", "attrition_threshold": 60}')
    budget_cost: Optional[float] = Field(None, gt=0, le=float(MAX_BUDGET_COST), description="start no further run once spent")
    parallel: Optional[int] = Field(None, ge=1, le=1000, description="runs on the worker at once")
    start: bool = Field(True, description="queue the runs on the worker now")
    interventions: dict[str, StudyInterventionIn] = Field(
        default_factory=dict, description='the values of an "intervention" axis besides "none", by name, e.g. '
        '{"lights": {"kind": "room_event", "tick": 300, "room": "grand_staircase", "text": "The lights go out."}} '
        'with axes {"intervention": ["none", "lights"]}: the arms are forks of one base run per cell')
    judge: list[str] = Field(default_factory=list, max_length=10, description='RUBRIC@DAY[:scenes=N], e.g. '
                             '["default@1"]: that day of every run judged against a shipped rubric once the run has '
                             "finished; each dimension becomes a measure (judge_d<DAY>_<dimension>), carried with the "
                             "judge's verdict; :scenes=N judges the day's N busiest scenes too "
                             "(judge_d<DAY>_scene_<dimension>)")


class StudyRunOut(Schema):
    run_id: int
    position: int
    cell: str
    seed: str
    tick: int
    target_ticks: int
    percent: float
    state: str
    started: bool
    note: str
    base: bool = Field(False, description="the base run the intervention arms fork from (not a cell)")
    forked_from: Optional[int] = None
    fork_tick: Optional[int] = None


class StudyOut(Schema):
    id: int
    name: str
    state: str
    stop_reason: str
    runs: int
    finished: int
    ticks: int
    target_ticks: int
    spent: float
    budget_cost: Optional[float]
    members: list[StudyRunOut]
    interventions: dict[str, dict] = Field(default_factory=dict, description="the intervention axis's values")
    fork_tick: Optional[int] = None
    warnings: list[str] = []


class StudyPage(Page):
    items: list[StudyOut]


CSV = {"responses": {200: {"description": "one row per run and day: the study's axes, the seed, every measure "
                                          "(README, Studies)",
                           "content": {"text/csv": {"schema": {"type": "string"}}}}}}


def study_out(study: Study, warnings: list[str] = ()) -> dict:
    progress = study_progress(study)
    return {**progress["study"], "members": progress["runs"], "warnings": list(warnings)}


def _text(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def plan_from(body: StudyIn) -> StudyPlan:
    if (body.ticks is None) == (body.days is None):
        raise StudyError("give each run's length as ticks or as days (one of them)")
    if len(body.axes) > MAX_AXES or any(not 1 <= len(v) <= MAX_VALUES for v in body.axes.values()):
        raise StudyError(f"at most {MAX_AXES} axes, each with 1 to {MAX_VALUES} values")
    axes = {}
    for name, values in body.axes.items():
        key = name.strip().replace("-", "_")
        texts = [_text(v) for v in values]
        if key == "seeds":
            key, texts = "seed", seed_count(texts, f"seeds={','.join(texts)}")
        if key in axes:
            raise StudyError(f"axis {key!r} is given twice")
        if len(set(texts)) != len(texts):
            raise StudyError(f"axis {key!r}: a value is repeated")
        axes[key] = texts
    ticks = body.ticks if body.ticks is not None else max(1, round(body.days * TICKS_PER_DAY))
    return StudyPlan(name=body.name, scenario=body.scenario, target_ticks=ticks, axes=axes,
                     base={k: _text(v) for k, v in body.shared.items()}, budget_cost=body.budget_cost,
                     parallel=body.parallel,
                     interventions={name: spec.dict(exclude_none=True) for name, spec in body.interventions.items()},
                     judging=[_judge(spec) for spec in body.judge])


def _judge(spec: str) -> dict:
    try:
        return parse_judge(spec[:200], files=False)  # over the API: shipped rubrics only, never a server path
    except StudyJudgeError as exc:
        raise StudyError(str(exc)) from None


@router.get("/studies", response={200: StudyPage, **errors()}, summary="Studies, oldest first, with their progress")
def list_studies(request, after: int = Query(0, ge=0, le=MAX_ID), limit: int = Query(20, ge=1, le=100)):
    studies = list(Study.objects.filter(pk__gt=after).order_by("pk")[:limit + 1])
    more = len(studies) > limit
    studies = studies[:limit]
    return {"items": [study_out(s) for s in studies], "next": studies[-1].pk if more else None}


@router.post("/studies", response={201: StudyOut, **errors()},
             summary="Make a study: one run per combination of the axes, queued on the worker (unless start=false)")
def create(request, body: StudyIn):
    try:
        study = create_study(plan_from(body))
    except (StudyError, GridError) as exc:
        return Status(422, {"detail": [{"loc": ["body"], "msg": str(exc), "type": "value_error"}]})
    if body.start:
        scheduler.start(study)
    return Status(201, study_out(study, study.warnings))


@router.get("/studies/{study_id}", response={200: StudyOut, **errors()}, summary="A study's progress, run by run")
def detail(request, study_id: int = StudyId):
    return study_out(get_object_or_404(Study, pk=study_id))


@router.get("/studies/{study_id}/results.csv", response=errors(), openapi_extra=CSV,
            summary="The tidy results as CSV: one row per run and day")
def results(request, study_id: int = StudyId):
    study = get_object_or_404(Study, pk=study_id)
    response = HttpResponse(csv_text(study), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="study-{study.pk}-results.csv"'
    return response
