"""The live event feed's items: event-log rows and the model calls that went wrong (an error after
every retry, or a call that needed retries), in the one shape the page and the websocket share.

Events come in `seq` order, calls in id order; both are committed with their tick, so reading them
is never ahead of a commit. An item's `what` is display text that may hold model output: the page
escapes it and the JavaScript inserts it with textContent.
"""
from __future__ import annotations

import hashlib

from django.db.models import Max, Q

from voyage.models import Event, LLMCall
from world.models import AgentState
from world.time import sim_clock

EVENT_FIELDS = ("seq", "tick", "kind", "text", "data", "actor__persona__key", "actor__persona__display_name",
                "room__key", "room__name")
CALL_FIELDS = ("id", "tick", "purpose", "answered", "error", "attempts", "agent__persona__key",
               "agent__persona__display_name")
MODEL_ERROR, MODEL_RETRY = "model_error", "model_retry"
CALL_KINDS = (MODEL_ERROR, MODEL_RETRY)
TROUBLE = Q(answered=False) | Q(attempts__gt=1)  # the calls the feed shows


def describe_event(kind: str, text: str, data: dict, actor: str, names: dict[str, str] | None = None) -> str:
    """One line saying what happened, as staff read it (every word, every monologue is theirs).
    `names`: persona key -> display name, for the people an event names by key."""
    if kind == "communicate":
        target = data.get("target")
        to = f" to {(names or {}).get(target, target)}" if target else ""
        return f'{actor} ({data.get("volume", "normal")}{to}): "{text}"'
    if kind == "wake":
        return f"{actor} wakes"
    if kind == "sleep":
        until = data.get("until")
        return f"{actor} falls asleep" + (f" until {sim_clock(until)}" if until is not None else "")
    if kind == "action_fail":
        return f"ACTION_FAIL {actor}: {text}"
    if kind == "reflection":
        return f"{actor} reflects ({text})"
    if kind == "intervention":
        return f"Intervention by {data.get('by', '?')}: {text}"
    if kind == "spouse_collision":
        return f"{', '.join(data.get('agents', []))}: {text}"
    return text


def names_in(run_id: int) -> dict[str, str]:
    """persona key -> display name, for a run's cast."""
    return dict(AgentState.objects.filter(run_id=run_id).values_list("persona__key", "persona__display_name"))


def event_item(row: dict, names: dict[str, str]) -> dict:
    actor = row["actor__persona__display_name"] or ""
    return {
        "seq": row["seq"], "tick": row["tick"], "clock": sim_clock(row["tick"]), "kind": row["kind"],
        "agent": row["actor__persona__key"] or "", "agent_name": actor,
        "room": row["room__key"] or "", "room_name": row["room__name"] or "",
        "what": describe_event(row["kind"], row["text"], row["data"] or {}, actor or "—", names),
    }


def call_item(row: dict) -> dict:
    who = row["agent__persona__display_name"] or "the ship"
    if not row["answered"]:
        kind, what = MODEL_ERROR, (f"{row['purpose']} call for {who}: no answer after {row['attempts']} "
                                   f"attempt(s): {row['error']}")
    else:
        kind, what = MODEL_RETRY, f"{row['purpose']} call for {who} needed {row['attempts']} attempts"
    return {"call": row["id"], "tick": row["tick"], "clock": sim_clock(row["tick"]), "kind": kind,
            "agent": row["agent__persona__key"] or "", "agent_name": row["agent__persona__display_name"] or "",
            "room": "", "room_name": "", "what": what}


def merged(events: list[dict], calls: list[dict]) -> list[dict]:
    """Events and calls in one stream by tick; within a tick, the events first (calls have no seq)."""
    return sorted(events + calls, key=lambda i: (i["tick"], 0 if "seq" in i else 1, i.get("seq", i.get("call"))))


def marks(run_id: int) -> tuple[int, int]:
    """(last event seq, last call id) of a run: where a live page starts listening."""
    call = LLMCall.objects.filter(run_id=run_id).aggregate(last=Max("id"))["last"]  # from an index on run
    return last_seq(run_id), (call or 0)


def last_seq(run_id: int) -> int:
    """The run's latest event seq (-1 before its first): events are only ever added, so what is
    read from them can be kept under this number."""
    seq = Event.objects.filter(run_id=run_id).order_by("-seq").values_list("seq", flat=True).first()
    return -1 if seq is None else seq


def items_after(run_id: int, after_seq: int, after_call: int, limit: int = 500) -> tuple[list[dict], int, int]:
    """Feed items newer than the marks, oldest first, at most `limit` events (and the calls of the
    ticks those cover); returns (items, new last seq, new last call id)."""
    events = list(Event.objects.filter(run_id=run_id, seq__gt=after_seq).order_by("seq").values(*EVENT_FIELDS)[:limit])
    calls = LLMCall.objects.filter(TROUBLE, run_id=run_id, id__gt=after_call).order_by("id")
    if events:  # only the calls of the ticks these events cover: the rest come with their own events
        calls = calls.filter(tick__lte=events[-1]["tick"])
    calls = list(calls.values(*CALL_FIELDS))
    last_seq = events[-1]["seq"] if events else after_seq
    last_call = calls[-1]["id"] if calls else after_call
    names = names_in(run_id) if events else {}
    return merged([event_item(e, names) for e in events], [call_item(c) for c in calls]), last_seq, last_call


def recent_items(run_id: int, upto: tuple[int, int], *, kind: str = "", room: str = "", agent: str = "",
                 limit: int = 200, names: dict[str, str] | None = None, run_uuid: str = "") -> list[dict]:
    """The newest `limit` items matching the filters, oldest first, up to the marks `upto` (last
    seq, last call id): the page's initial feed, which the websocket continues from those marks
    (without the cap, a tick committed between reading the marks and the items would show twice).
    `names`: names_in(run_id), when the caller has read them already. `run_uuid`: the run's, to keep
    the items in the cache under: events and calls are only ever added, each as it stays, so the
    items up to given marks never change (a page reloaded within a tick reads none of them again)."""
    if run_uuid:
        from django.core.cache import cache

        filters = hashlib.sha1(repr((kind, room, agent)).encode()).hexdigest()  # as typed: any characters
        key = f"voyage:feed-items:v1:{run_uuid}:{upto[0]}:{upto[1]}:{filters}:{limit}"
        return cache.get_or_set(key, lambda: recent_items(run_id, upto, kind=kind, room=room, agent=agent,
                                                          limit=limit, names=names), timeout=3600)
    events = Event.objects.filter(run_id=run_id, seq__lte=upto[0])
    calls = LLMCall.objects.filter(TROUBLE, run_id=run_id)
    if kind in CALL_KINDS:
        events = events.none()
        calls = calls.filter(answered=False) if kind == MODEL_ERROR else calls.filter(answered=True)
    elif kind:
        events, calls = events.filter(kind=kind), calls.none()
    if room:
        events, calls = events.filter(room__key=room), calls.none()
    if agent:
        agent_ids = AgentState.objects.filter(run_id=run_id, persona__key=agent).values("id")
        events, calls = events.filter(actor_id__in=agent_ids), calls.filter(agent_id__in=agent_ids)
    newest_events = list(events.order_by("-seq").values(*EVENT_FIELDS)[:limit])
    names = names_in(run_id) if names is None else names
    items = merged([event_item(e, names) for e in newest_events],
                   [call_item(c) for c in newest_calls(calls, upto[1], limit)])
    return items[-limit:]


def newest_calls(calls, upto: int, limit: int) -> list[dict]:
    """The newest of these calls up to id `upto`. Their ids come from the run's usage index
    (llm_call_usage holds answered and attempts), and are cut at `upto` here rather than in SQL:
    given an id range, SQLite walks the table's wide rows (prompt and answer) instead."""
    ids = sorted(i for i in calls.order_by().values_list("id", flat=True) if i <= upto)[-limit:]
    return list(LLMCall.objects.filter(id__in=ids).order_by("id").values(*CALL_FIELDS))


