"""A room's transcript as staff see it: every event the log places in the room, by tick, with the
words of each utterance, its volume, who heard it in full and who only saw that talk happened.
Paginated by event (keyset on the run-wide sequence) and downloadable as the same Markdown as
`manage.py transcript --room`. The newest page is live: it listens to the run's websocket feed
(voyage.web.consumers, which tails the event table and so never runs ahead of a commit) and, when an
item names this room, fetches the room's full lines after its last one from `room_events`."""
from __future__ import annotations

from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render

from voyage.models import Event, Run
from voyage.records.transcript import markdown
from voyage.web.access import staff_required
from voyage.web.feed import marks
from voyage.web.params import int_param
from world.models import AgentState, Room
from world.rules.acoustics import HEARD, OBSERVED, SHOUT_NEARBY, WHISPERED
from world.time import sim_clock

PAGE = 100  # events per page
LIVE_BATCH = 200  # events per poll of the live feed, at most

# What a line says for kinds whose event text is empty.
PLAIN = {"wake": "wakes", "sleep": "falls asleep"}
# How each delivery mode reads to staff, in the order they are listed.
HEARERS = ((HEARD, "heard"), (OBSERVED, "saw the talk, no words"), (WHISPERED, "saw a whisper pass"),
           (SHOUT_NEARBY, "heard a shout next door"))


def room_line(seq: int, tick: int, kind: str, actor: str | None, text: str, data: dict,
              names: dict[str, str]) -> dict:
    """One event as a transcript line: plain data, shared by the page and the live JSON feed.
    `actor` is a persona key; `names` maps persona keys to display names."""
    name = names.get(actor, "") if actor else ""
    line = {"seq": seq, "tick": tick, "clock": sim_clock(tick), "kind": kind, "actor": name, "actor_key": actor or "",
            "text": text or PLAIN.get(kind, ""), "speech": None}
    if kind == "communicate":
        delivered = data.get("delivered") or {}
        line["speech"] = {
            "volume": data.get("volume") or "",
            "target": names.get(data.get("target"), "") if data.get("target") else "",
            "groups": [{"mode": mode, "label": label,
                        "names": sorted(names.get(k, k) for k, m in delivered.items() if m == mode)}
                       for mode, label in HEARERS if mode in delivered.values()],
        }
    return line


def _lines(events, names) -> list[dict]:
    return [room_line(*row, names) for row in
            events.values_list("seq", "tick", "kind", "actor__persona__key", "text", "data")]


def by_tick(lines: list[dict]) -> list[dict]:
    """Consecutive lines grouped under their tick."""
    groups: list[dict] = []
    for line in lines:
        if not groups or groups[-1]["tick"] != line["tick"]:
            groups.append({"tick": line["tick"], "clock": line["clock"], "lines": []})
        groups[-1]["lines"].append(line)
    return groups


def _room(run_id: int, room_key: str) -> tuple[Run, Room]:
    run = get_object_or_404(Run.objects.select_related("scenario"), pk=run_id)
    room = Room.objects.filter(scenario_id=run.scenario_id, key=room_key).first()
    if room is None:
        raise Http404(f"the {run.scenario} has no room {room_key!r}")
    return run, room


def persona_names(run: Run) -> dict[str, str]:
    return dict(run.scenario.personas.values_list("key", "display_name"))


@staff_required
def room_transcript(request, run_id: int, room_key: str):
    run, room = _room(run_id, room_key)
    names = persona_names(run)
    run_seq, run_call = marks(run.pk)  # before reading the page: anything later reaches the live feed
    # The page is read as of those marks, in separate queries while the run may commit more: without
    # the bound, a tick landing between reading the lines and asking whether newer ones exist made
    # the newest page look old, and it never went live.
    events = Event.objects.filter(run=run, room=room, seq__lte=run_seq)
    before, after, tick = (int_param(request, n) for n in ("before", "after", "tick"))
    if after is not None or tick is not None:
        page = events.filter(seq__gt=after) if after is not None else events.filter(tick__gte=tick)
        lines = _lines(page.order_by("seq")[:PAGE], names)
    else:
        page = events.filter(seq__lt=before) if before is not None else events
        lines = _lines(page.order_by("-seq")[:PAGE], names)[::-1]
    first, last = (lines[0]["seq"], lines[-1]["seq"]) if lines else (None, None)
    newer = last is not None and events.filter(seq__gt=last).exists()
    older = first is not None and events.filter(seq__lt=first).exists()
    present = (AgentState.objects.filter(run=run, location=room, alive=True)
               .order_by("persona__display_name").values("persona__key", "persona__display_name", "asleep"))
    return render(request, "web/rooms_transcript.html", {
        "run": run, "room": room, "ticks": by_tick(lines), "first": first, "last": last,
        "older": older, "newer": newer, "live": not newer and before is None,
        "present": list(present), "now": sim_clock(run.tick), "run_seq": run_seq, "run_call": run_call,
    })


@staff_required
def room_events(request, run_id: int, room_key: str):
    """The live feed of the newest page: lines after `after` (a sequence number), oldest first."""
    run, room = _room(run_id, room_key)
    after = int_param(request, "after")
    events = Event.objects.filter(run=run, room=room, seq__gt=-1 if after is None else after).order_by("seq")
    lines = _lines(events[:LIVE_BATCH], persona_names(run))
    state = Run.objects.filter(pk=run.pk).values_list("state", "tick").get()
    return JsonResponse({"lines": lines, "more": len(lines) == LIVE_BATCH, "state": state[0],
                         "clock": sim_clock(state[1])})


@staff_required
def room_markdown(request, run_id: int, room_key: str):
    """The same text as `manage.py transcript --run ID --room KEY`."""
    run, room = _room(run_id, room_key)
    response = HttpResponse(markdown(run, room.key), content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="run{run.pk}-{room.key}.md"'
    return response
