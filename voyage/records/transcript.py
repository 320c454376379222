"""A run's event log as readable Markdown."""
from __future__ import annotations

from voyage.instruments.interventions import where
from voyage.models import Event, Run
from world.time import day_of, time_of_day

SHOWN = {
    "communicate": lambda e, who, room: f'**{who}** ({e.data.get("volume")}) in the {room}: “{e.text}”',
    "move": lambda e, who, room: f"{who} walks into the {room}." if e.data.get("arrived") else None,
    "interact": lambda e, who, room: f"{e.text} ({room}).",
    "rung": lambda e, who, room: f"⟡ {e.text}.",
    "death": lambda e, who, room: f"✝ {e.text} in the {room}.",
    "attack": lambda e, who, room: f"⚔ {e.text} in the {room}.",
    "attrition": lambda e, who, room: f"Rumour: {e.text}",
    "spouse_collision": lambda e, who, room: f"In the {room}, {', '.join(e.data['names'])} wake together.",
    "nightfall": lambda e, who, room: f"Nightfall: {e.text}.",
    "wind_down": lambda e, who, room: f"Evening: {e.text}.",
    "bulletin": lambda e, who, room: f"📰 {e.text}",
    "action_fail": lambda e, who, room: f"{who}: ACTION_FAIL — {e.text}",
    "intervention": lambda e, who, room: f"✋ Intervention by {e.data.get('by')} ({where(e.data, who, room)}): {e.text}",
}


def markdown(run: Run, room_key: str | None = None) -> str:
    events = Event.objects.filter(run=run).select_related("actor__persona", "room").order_by("seq")
    if room_key:
        events = events.filter(room__key=room_key)
    names = dict(run.scenario.personas.values_list("key", "display_name"))
    out = [f"# {run} — {run.scenario.name}", ""]
    day = None
    for e in events.iterator(chunk_size=2000):
        render = SHOWN.get(e.kind)
        if render is None:
            continue
        who = e.actor.persona.display_name if e.actor else ""
        if "agents" in e.data:
            e.data["names"] = [names[k] for k in e.data["agents"]]
        line = render(e, who, e.room.name if e.room else "")
        if line is None:
            continue
        if day_of(e.tick) != day:
            day = day_of(e.tick)
            out += ["", f"## Day {day}", ""]
        out.append(f"- `{time_of_day(e.tick)}` {line}")
    return "\n".join(out) + "\n"
