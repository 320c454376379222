"""Interviews through the API: ask an agent a question as it stood at a tick, and list what it was
asked. Staff session (with the CSRF header) or API token, as every operation (voyage/api/auth.py)."""
from __future__ import annotations

from datetime import datetime
from typing import Optional

from ninja import Field, Query, Router, Schema, Status

from voyage.api.agents import AgentKey, get_agent
from voyage.api.errors import errors
from voyage.api.runs import RunId, get_run
from voyage.api.schemas import MAX_TICKS, Body
from voyage.instruments.interviews import MAX_QUESTION, InterviewError, ask
from voyage.instruments.models import Interview

router = Router(tags=["interviews"])


class InterviewIn(Body):
    question: str = Field(min_length=1, max_length=MAX_QUESTION)
    tick: Optional[int] = Field(None, ge=0, le=MAX_TICKS, description="ask as the agent stood at this tick; null: now")


class InterviewOut(Schema):
    id: int
    agent: str
    tick: int
    rung: int
    question: str
    answered: bool
    answer: str = Field(description="the model's answer, untrusted text: show it escaped")
    error: str
    call: int = Field(description="the model call (purpose interview): GET /runs/{run_id}/calls has its prompt")
    prompt_tokens: int
    completion_tokens: int
    cost: float
    asked_by: Optional[str] = None
    asked_at: datetime


def interview_out(iv: Interview) -> dict:
    call = iv.call
    return {"id": iv.pk, "agent": iv.agent.persona.key, "tick": iv.tick, "rung": iv.rung, "question": iv.question,
            "answered": call.answered, "answer": call.raw_answer, "error": call.error, "call": call.pk,
            "prompt_tokens": call.prompt_tokens, "completion_tokens": call.completion_tokens, "cost": float(call.cost),
            "asked_by": iv.asked_by.get_username() if iv.asked_by else None, "asked_at": iv.asked_at}


@router.post("/runs/{run_id}/agents/{key}/interviews", response={201: InterviewOut, **errors()},
             summary="Ask the agent a question as it stood at a tick (never changes the run)")
def interview(request, body: InterviewIn, run_id: int = RunId, key: str = AgentKey):
    run, agent = get_run(run_id), get_agent(run_id, key)
    try:
        made = ask(run, agent, body.question, body.tick, asked_by=request.auth)
    except InterviewError as exc:
        return Status(422, {"detail": [{"loc": ["body"], "msg": str(exc), "type": "value_error"}]})
    return Status(201, interview_out(made))


@router.get("/runs/{run_id}/agents/{key}/interviews", response={200: list[InterviewOut], **errors()},
            summary="What the agent was asked, newest first")
def interviews(request, run_id: int = RunId, key: str = AgentKey, limit: int = Query(50, ge=1, le=500)):
    agent = get_agent(run_id, key)
    rows = (Interview.objects.filter(agent=agent).select_related("call", "asked_by", "agent__persona")
            .defer("call__prompt_z").order_by("-id")[:limit])
    return [interview_out(iv) for iv in rows]
