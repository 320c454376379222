"""A run's agents and each agent's memory: the raw stream (cursor-paginated), full-text search
(memories.recall, the function the inspector and the context builder use), summaries, dreams,
diary and trust ledger with its history. Staff see everything, monologues included."""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from ninja import Path, Query, Router

from memories.models import DiaryEntry, Dream, Memory, MemorySummary, TrustEntry, TrustHistory
from memories.recall import recall
from voyage.api.errors import errors
from voyage.api.runs import RunId, get_run
from voyage.api.schemas import (MAX_ID, AgentOut, DiaryOut, DreamOut, MemoryPage, RecalledOut, SummaryOut,
                                TrustOut)
from world.models import AgentState

router = Router(tags=["agents and memory"])
AgentKey = Path(..., max_length=60, description="the persona's key")


def get_agent(run_id: int, key: str) -> AgentState:
    return get_object_or_404(AgentState.objects.select_related("persona", "location", "destination"),
                             run_id=get_run(run_id).pk, persona__key=key)


@router.get("/runs/{run_id}/agents", response={200: list[AgentOut], **errors()}, summary="The cast and its state")
def agents(request, run_id: int = RunId):
    run = get_run(run_id)
    names = dict(run.scenario.rungs.values_list("level", "name"))
    rows = AgentState.objects.filter(run=run).select_related("persona", "location", "destination").order_by("persona__key")
    return [{"key": a.persona.key, "name": a.persona.display_name, "rung": a.rung, "rung_name": names.get(a.rung, ""),
             "rung_reached_tick": a.rung_reached_tick, "room": a.location.key, "room_name": a.location.name,
             "destination": a.destination.key if a.destination_id else None, "alive": a.alive, "asleep": a.asleep,
             "busy_until_tick": a.busy_until_tick} for a in rows]


@router.get("/runs/{run_id}/agents/{key}/memories", response={200: MemoryPage, **errors()},
            summary="The agent's raw memory stream, oldest first")
def memories(request, run_id: int = RunId, key: str = AgentKey, after: int = Query(0, ge=0, le=MAX_ID),
             limit: int = Query(100, ge=1, le=500)):
    agent = get_agent(run_id, key)
    rows = list(Memory.objects.filter(agent=agent, id__gt=after).order_by("id")
                .values("id", "tick", "kind", "importance", "depth", "text", "evidence")[:limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    return {"items": rows, "next": rows[-1]["id"] if more else None}


@router.get("/runs/{run_id}/agents/{key}/memories/search", response={200: list[RecalledOut], **errors()},
            summary="Total recall: the agent's rows matching the words of q, best first")
def search(request, run_id: int = RunId, key: str = AgentKey, q: str = Query(..., min_length=1, max_length=300),
           k: int = Query(10, ge=1, le=40)):
    agent = get_agent(run_id, key)
    return [{"id": r.id, "tick": r.tick, "kind": r.kind, "importance": r.importance, "text": r.text, "score": r.score}
            for r in recall(agent.pk, q.replace("\x00", " "), k=k)]


@router.get("/runs/{run_id}/agents/{key}/summaries", response={200: list[SummaryOut], **errors()},
            summary="Summaries and era summaries, oldest first")
def summaries(request, run_id: int = RunId, key: str = AgentKey):
    agent = get_agent(run_id, key)
    return [{"level": s.level, "first_row": s.first_row, "last_row": s.last_row, "row_count": s.row_count,
             "tick": s.tick, "text": s.text, "folded": s.folded_into_id is not None}
            for s in MemorySummary.objects.filter(agent=agent).order_by("first_row", "level")]


@router.get("/runs/{run_id}/agents/{key}/dreams", response={200: list[DreamOut], **errors()})
def dreams(request, run_id: int = RunId, key: str = AgentKey):
    return list(Dream.objects.filter(agent=get_agent(run_id, key)).order_by("tick")
                .values("tick", "identity", "places", "people"))


@router.get("/runs/{run_id}/agents/{key}/diary", response={200: list[DiaryOut], **errors()})
def diary(request, run_id: int = RunId, key: str = AgentKey):
    return [{"date": d.date, "day": d.day, "tick": d.tick, "mood": d.mood, "room": d.location.key, "text": d.text}
            for d in DiaryEntry.objects.filter(agent=get_agent(run_id, key)).select_related("location").order_by("date")]


@router.get("/runs/{run_id}/agents/{key}/trust", response={200: list[TrustOut], **errors()},
            summary="The trust ledger, with every change")
def trust(request, run_id: int = RunId, key: str = AgentKey):
    agent = get_agent(run_id, key)
    entries = list(TrustEntry.objects.filter(agent=agent).select_related("other__persona").order_by("other__persona__key"))
    history: dict[int, list] = {e.pk: [] for e in entries}
    for h in TrustHistory.objects.filter(entry__agent=agent).order_by("tick", "id").values(
            "entry_id", "tick", "score", "label", "emotional_tone", "rationale"):
        history[h.pop("entry_id")].append(h)
    return [{"other": e.other.persona.key, "score": e.score, "label": e.label, "emotional_tone": e.emotional_tone,
             "rationale": e.rationale, "interaction_count": e.interaction_count, "first_met_tick": e.first_met_tick,
             "updated_tick": e.updated_tick, "history": history[e.pk]} for e in entries]
