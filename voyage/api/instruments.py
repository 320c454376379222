"""Interviews and interventions through the API: ask an agent a question as it stood at a tick, and
list what it was asked; change a paused run's world, and list the changes. Staff session (with the
CSRF header) or API token, as every operation (voyage/api/auth.py)."""
from __future__ import annotations

from datetime import datetime
from typing import Literal, Optional

from ninja import Field, Query, Router, Schema, Status

from voyage.api.agents import AgentKey, get_agent
from voyage.api.errors import errors
from voyage.api.runs import RunId, get_run
from voyage.api.schemas import MAX_TICKS, Body
from voyage.instruments.interventions import MAX_TEXT, InterventionError, intervene
from voyage.instruments.interviews import MAX_QUESTION, InterviewError, ask
from voyage.instruments.models import Intervention, Interview

router = Router(tags=["interviews and interventions"])


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


class InterventionIn(Body):
    kind: Literal["room_event", "memory", "object_place", "object_move", "object_remove", "persona"]
    text: str = Field("", max_length=MAX_TEXT, description="what happens; the memory; a placed object's "
                      "description; a persona's new text")
    tick: Optional[int] = Field(None, ge=0, le=MAX_TICKS, description="null: the run's current tick (applied at once)")
    room: Optional[str] = Field(None, max_length=60, description="room_event: the room's key")
    how: Literal["sound", "sight"] = Field("sound", description="room_event: a loud sound, or a visible change")
    agent: Optional[str] = Field(None, max_length=60, description="memory, persona: the agent's persona key")
    name: str = Field("", max_length=100, description="object_*: the object's name")
    field: Literal["", "history", "fear", "secret"] = Field("", description="persona: which text")


class InterventionOut(Schema):
    id: int
    tick: int
    kind: str
    text: str
    room: Optional[str] = None
    how: str
    agent: Optional[str] = None
    name: str
    field: str
    made_by: str
    applied: bool


def intervention_out(iv: Intervention) -> dict:
    return {"id": iv.pk, "tick": iv.tick, "kind": iv.kind, "text": iv.text, "room": iv.room.key if iv.room_id else None,
            "how": iv.how, "agent": iv.agent.persona.key if iv.agent_id else None, "name": iv.name, "field": iv.field,
            "made_by": iv.made_by,
            "applied": iv.applied}


@router.post("/runs/{run_id}/interventions", response={201: InterventionOut, **errors()},
             summary="Change a paused run's world at a tick: a room event, a planted memory, an object, a persona")
def add_intervention(request, body: InterventionIn, run_id: int = RunId):
    try:
        made = intervene(get_run(run_id), body.kind, body.text, tick=body.tick, room=body.room, how=body.how,
                         agent=body.agent, name=body.name, field=body.field, made_by=request.auth.get_username())
    except InterventionError as exc:
        return Status(422, {"detail": [{"loc": ["body"], "msg": str(exc), "type": "value_error"}]})
    return Status(201, intervention_out(made))


@router.get("/runs/{run_id}/interventions", response={200: list[InterventionOut], **errors()},
            summary="The run's interventions, in tick order")
def interventions(request, run_id: int = RunId):
    rows = Intervention.objects.filter(run=get_run(run_id)).select_related("room", "agent__persona").order_by("tick", "id")
    return [intervention_out(iv) for iv in rows]
