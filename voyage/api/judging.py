"""Judging through the API: judge a run's day (the default rubric; the run's judge route, else its
profile, else the offline scripted judge, or the profiles named), and list the jobs with their
scores, each beside the judge's verdict (docs/judging.md)."""
from __future__ import annotations

import time
from datetime import datetime

from ninja import Field, Query, Router, Schema, Status

from voyage.api.errors import errors
from voyage.api.runs import RunId, get_run
from voyage.api.schemas import Body
from voyage.instruments.models import Judging
from voyage.judging.job import MAX_SCENES, JudgeError, judge_run, save
from voyage.judging.packets import PacketError
from voyage.judging.rubric import load_rubric

router = Router(tags=["judging"])


class JudgingIn(Body):
    day: int = Field(1, ge=1, le=10_000)
    judges: list[str] = Field([], max_length=2, description="model profile names (none: the run's judge route, "
                                                             "else its profile, else the offline scripted judge)")
    scenes: int = Field(0, ge=0, le=MAX_SCENES,
                        description="also judge the day's N busiest scenes (a room over 60 ticks), on the rubric's "
                                    "dimensions that read scene; their scores are keyed scene:ROOM@A-B in `agent`")


class ScoreOut(Schema):
    agent: str = Field(description="the persona key, or a scene's key scene:ROOM@FIRST-LAST")
    dimension: str
    score: float | None = Field(description="null: missing (see `missing`)")
    reason: str = Field(description="the judge's reason, untrusted text: show it escaped")
    cites: list[str]
    missing: str


class JudgingOut(Schema):
    id: int
    day: int
    rubric: str
    judge: str
    scripted: bool
    verdict: str = Field(description="reliable, doubtful or unreliable: show it beside every score")
    checks: dict = Field(description="the job's JSON line: repeat_alpha, judges_alpha, order_flip_share, "
                                     "planted_detection, verdict_reasons, calls, cpu_s, ...")
    scores: list[ScoreOut]
    created_at: datetime


def judging_out(job: Judging) -> dict:
    return {"id": job.pk, "day": job.day, "rubric": job.rubric, "judge": job.judge, "scripted": job.scripted,
            "verdict": job.verdict, "checks": job.summary, "scores": job.scores, "created_at": job.created_at}


@router.post("/runs/{run_id}/judging", response={201: JudgingOut, **errors()},
             summary="Judge a day of the run against the default rubric, with the judge's self-checks")
def judge(request, body: JudgingIn, run_id: int = RunId):
    run = get_run(run_id)
    start = time.process_time()
    try:
        result = judge_run(run, load_rubric(), body.day, judges=body.judges, scenes=body.scenes)
    except (JudgeError, PacketError) as exc:
        return Status(422, {"detail": [{"loc": ["body"], "msg": str(exc), "type": "value_error"}]})
    return Status(201, judging_out(save(result, time.process_time() - start, asked_by=request.auth)))


@router.get("/runs/{run_id}/judging", response={200: list[JudgingOut], **errors()},
            summary="The run's judging jobs, newest first, each with its verdict")
def judgings(request, run_id: int = RunId, limit: int = Query(10, ge=1, le=100)):
    get_run(run_id)
    return [judging_out(job) for job in Judging.objects.filter(run_id=run_id).order_by("-id")[:limit]]
