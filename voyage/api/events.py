"""A run's event log (cursor-paginated by seq: a client follows a running run by asking for events
after the last seq it holds), a room's transcript as JSON or Markdown, the model calls with their
prompts and answers, and the tidy tables as CSV downloads."""
from __future__ import annotations

from typing import Literal, Optional

from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from ninja import Path, Query, Router

from voyage.api.errors import errors
from voyage.api.runs import RunId, get_run
from voyage.api.schemas import MAX_ID, MAX_TICKS, CallPage, EventPage
from voyage.export.tables import TABLES, csv_chunks
from voyage.models import Event, LLMCall
from voyage.records.transcript import markdown
from world.time import sim_clock

router = Router(tags=["events, transcripts, calls, tables"])
FIELDS = ("seq", "tick", "kind", "actor__persona__key", "room__key", "text", "data")


def event_rows(queryset, limit: int) -> dict:
    rows = list(queryset.order_by("seq").values_list(*FIELDS)[:limit + 1])
    more = len(rows) > limit
    items = [{"seq": seq, "tick": tick, "clock": sim_clock(tick), "kind": kind, "actor": actor, "room": room,
              "text": text, "data": data} for seq, tick, kind, actor, room, text, data in rows[:limit]]
    return {"items": items, "next": items[-1]["seq"] if more else None}


@router.get("/runs/{run_id}/events", response={200: EventPage, **errors()},
            summary="Events in order of seq; after=<the last seq you hold> to follow a running run")
def events(request, run_id: int = RunId, after: int = Query(-1, ge=-1, le=MAX_ID, description="events with seq > after"),
           limit: int = Query(200, ge=1, le=1000), tick_from: Optional[int] = Query(None, ge=0, le=MAX_TICKS),
           tick_to: Optional[int] = Query(None, ge=0, le=MAX_TICKS),
           kind: Optional[str] = Query(None, max_length=20), room: Optional[str] = Query(None, max_length=60),
           agent: Optional[str] = Query(None, max_length=60, description="the actor's persona key")):
    queryset = Event.objects.filter(run=get_run(run_id), seq__gt=after)
    if tick_from is not None:
        queryset = queryset.filter(tick__gte=tick_from)
    if tick_to is not None:
        queryset = queryset.filter(tick__lte=tick_to)
    for field, value in (("kind", kind), ("room__key", room), ("actor__persona__key", agent)):
        if value is not None:
            queryset = queryset.filter(**{field: value})
    return event_rows(queryset, limit)


MARKDOWN = {"responses": {200: {"description": "the transcript as Markdown",
                                "content": {"text/markdown": {"schema": {"type": "string"}}}}}}


@router.get("/runs/{run_id}/rooms/{room}/transcript", response={200: EventPage, **errors()},
            summary="What was said and seen in a room, as JSON events")
def transcript(request, run_id: int = RunId, room: str = Path(..., max_length=60),
               after: int = Query(-1, ge=-1, le=MAX_ID), limit: int = Query(500, ge=1, le=2000)):
    run = get_run(run_id)
    get_object_or_404(run.scenario.rooms, key=room)
    return event_rows(Event.objects.filter(run=run, room__key=room, seq__gt=after), limit)


@router.get("/runs/{run_id}/rooms/{room}/transcript.md", response=errors(), openapi_extra=MARKDOWN,
            summary="A room's transcript as Markdown")
def transcript_markdown(request, run_id: int = RunId, room: str = Path(..., max_length=60)):
    run = get_run(run_id)
    get_object_or_404(run.scenario.rooms, key=room)
    return HttpResponse(markdown(run, room), content_type="text/markdown; charset=utf-8")


@router.get("/runs/{run_id}/calls", response={200: CallPage, **errors()},
            summary="Model calls with prompt, answer, tokens, latency and cost, in order")
def calls(request, run_id: int = RunId, after: int = Query(0, ge=0, le=MAX_ID), limit: int = Query(50, ge=1, le=200),
          purpose: Optional[str] = Query(None, max_length=16), agent: Optional[str] = Query(None, max_length=60)):
    queryset = LLMCall.objects.filter(run=get_run(run_id), id__gt=after).select_related("agent__persona")
    if purpose is not None:
        queryset = queryset.filter(purpose=purpose)
    if agent is not None:
        queryset = queryset.filter(agent__persona__key=agent)
    rows = list(queryset.order_by("id")[:limit + 1])
    more = len(rows) > limit
    items = [{"id": c.pk, "tick": c.tick, "agent": c.agent.persona.key if c.agent_id else None, "purpose": c.purpose,
              "prompt": c.prompt, "answer": c.raw_answer, "answered": c.answered, "error": c.error,
              "outcome": c.outcome, "detail": c.detail, "prompt_tokens": c.prompt_tokens,
              "completion_tokens": c.completion_tokens, "reasoning_tokens": c.reasoning_tokens,
              "cached_tokens": c.cached_tokens, "latency_ms": c.latency_ms, "attempts": c.attempts,
              "cost": float(c.cost)} for c in rows[:limit]]
    return {"items": items, "next": items[-1]["id"] if more else None}


CSV = {"responses": {200: {"description": "the table as CSV (columns: README, Tidy tables)",
                           "content": {"text/csv": {"schema": {"type": "string"}}}}}}


@router.get("/runs/{run_id}/tables/{name}.csv", response=errors(), openapi_extra=CSV,
            summary="A tidy table as a CSV download")
def table(request, name: Literal[tuple(TABLES)], run_id: int = RunId):  # type: ignore[valid-type]
    run = get_run(run_id)
    response = StreamingHttpResponse(csv_chunks(run, name), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-{name}.csv"'
    return response
