"""Evidence packets: what the judge reads, built deterministically from what the run committed.
Two kinds: an agent's day, and a room's scene over a window of ticks.

An agent's day is its own memory rows of that day (its actions with their words and thoughts, what
it heard, saw and examined, its reflections) and the older rows its action calls recalled, beside
its persona (history, secret, fear), its rung, the names it may use and the words foreign to its
world. Each packet is bounded: rows are clipped, and when the day does not fit the token budget the
agent's own words and deeds are kept first, then its perceptions, each thinned evenly, and the cut
is stated in the packet. Same run, same day, same agent → the same packet, for every judge and
every repeat. Reads only; it writes nothing.

A scene is what happened in one room over ticks [a, b], as the event log holds it (a staff-level
view: the judge is an instrument reading the record, not a passenger): who was there, what each
said (with whom and how loud) and did there, who came and went. Nothing that happened elsewhere
is in it — not a shout from the next room, not anyone's unspoken thoughts (reflections), not a rung
reached. Bounded as a day is: the lines said and deeds done are kept first, then the comings and
goings, each thinned evenly over the window, the cut stated."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import yaml
from django.db.models import Q

from memories.as_of import state_at, trust_at
from memories.models import Memory
from voyage.models import Event, LLMCall, Run
from voyage.records.timetravel import STATE_KINDS, LoggedEvent, apply, start_of_run
from world.models import AgentState, Room
from world.rules.ladder import OWN_NAME, knows
from world.time import TICKS_PER_DAY

PACKET_TOKENS = 4_500  # the packet; with the rubric and instructions a prompt stays under 6,000
ROW_CHARS = 320
RECALLED_MAX = 12
OWN_KINDS = ("action", "reflection")
SCENE_DEEDS = ("communicate", "interact", "attack", "death")  # said or done in the room
SCENE_COMINGS = ("move", "wake", "sleep", "spouse_collision")  # who came, went, woke, slept
SCENE_TICKS = 60  # a scene's window when the job picks the busiest
FOREIGN = Path(__file__).parent / "foreign_words.yaml"


class PacketError(ValueError):
    """The packets cannot be built as asked; the message says why."""


def tokens_of(value) -> int:
    """Tokens as the offline policy counts them: characters / 4."""
    return len(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)) // 4


def foreign_words(slug: str) -> list[str]:
    table = yaml.safe_load(FOREIGN.read_text())
    return list(table.get(slug, table["default"]))


def day_ticks(day: int) -> tuple[int, int]:
    return (day - 1) * TICKS_PER_DAY, day * TICKS_PER_DAY - 1


def _clip(text: str) -> str:
    return text if len(text) <= ROW_CHARS else text[: ROW_CHARS - 1].rstrip() + "…"


def _thin(rows: list[dict], keep: int) -> list[dict]:
    """`keep` rows spread evenly over `rows` (first and last kept), in order."""
    if keep >= len(rows):
        return rows
    if keep <= 0:
        return []
    if keep == 1:
        return rows[:1]
    step = (len(rows) - 1) / (keep - 1)
    return [rows[round(i * step)] for i in range(keep)]


def _fit(rows: list[dict], budget: int) -> list[dict]:
    """As many rows, evenly spread, as fit `budget` tokens."""
    keep = len(rows)
    while keep and tokens_of(_thin(rows, keep)) > budget:
        keep = max(0, int(keep * min(0.95, budget / max(1, tokens_of(_thin(rows, keep))))))
    return _thin(rows, keep)


def agent_day(run: Run, agent: AgentState, day: int, *, cast: list[str], budget: int = PACKET_TOKENS) -> dict:
    first, last = day_ticks(day)
    last = min(last, max(run.tick - 1, first))
    rungs = run.scenario.rung_specs()
    rung = state_at(agent, last)[0]
    name = agent.persona.display_name
    known = [n for n, _, _ in trust_at(agent, last, rung, rungs)]
    if knows(rungs, rung, OWN_NAME):
        known = [name, *known]
    rows = [{"id": f"m{i}", "tick": t, "kind": k, "own": k in OWN_KINDS, "text": _clip(text)}
            for i, t, k, text in Memory.objects.filter(agent=agent, tick__gte=first, tick__lte=last)
            .order_by("id").values_list("id", "tick", "kind", "text")]
    used = Counter(i for ids in LLMCall.objects.filter(run=run, agent=agent, purpose="action", tick__gte=first,
                                                       tick__lte=last).values_list("recalled", flat=True)
                   for i in ids or ())
    day_ids = {r["id"] for r in rows}
    recalled_ids = [i for i, _ in sorted(used.items(), key=lambda kv: (-kv[1], kv[0])) if f"m{i}" not in day_ids]
    recalled = [{"id": f"m{i}", "tick": t, "kind": k, "text": _clip(text)}
                for i, t, k, text in Memory.objects.filter(id__in=recalled_ids[:RECALLED_MAX]).order_by("id")
                .values_list("id", "tick", "kind", "text")]
    packet = {
        "id": f"r{run.pk}.d{day}.{agent.persona.key}", "run": run.pk, "day": day, "ticks": [first, last],
        "agent": {"key": agent.persona.key, "name": name, "rung": rung, "knows_own_name": name in known,
                  "history": agent.persona.history, "secret": agent.persona.secret, "fear": agent.persona.fear},
        "world": {"scenario": run.scenario.slug, "foreign_words": foreign_words(run.scenario.slug)},
        "cast": cast, "names_known": known, "items": [], "recalled": recalled, "cut": "",
    }
    return bounded(packet, rows, budget)


def bounded(packet: dict, rows: list[dict], budget: int) -> dict:
    """`packet` with as many of `rows` as fit `budget` tokens, the cut stated. Pure. Rows marked
    `own` (an agent's own words and deeds; a scene's lines and deeds) are kept first."""
    packet = {**packet, "items": [], "cut": ""}
    recalled = packet["recalled"]
    while recalled and tokens_of(packet) > budget // 3:  # recalled rows take a third of it at most
        recalled = recalled[:-1]
        packet["recalled"] = recalled
    room = budget - tokens_of(packet) - 60  # 60: the cut's own sentence
    own = [r for r in rows if r["own"]]
    other = [r for r in rows if not r["own"]]
    kept_own = _fit(own, room)
    kept_other = _fit(other, room - tokens_of(kept_own))
    kept = sorted(kept_own + kept_other, key=lambda r: int(r["id"][1:]))
    packet["items"] = kept
    if "scene" in packet:
        packet["cut"] = ("nothing cut: everything said, done and seen in the room in the window"
                         if len(kept) == len(rows) else
                         f"cut to {budget} tokens: {len(kept_own)} of its {len(own)} lines said and deeds done and "
                         f"{len(kept_other)} of its {len(other)} comings and goings, each set thinned evenly over the "
                         f"window; rows clipped to {ROW_CHARS} characters")
        return packet
    packet["cut"] = ("nothing cut: every row of the day" if len(kept) == len(rows) else
                     f"cut to {budget} tokens: {len(kept_own)} of its {len(own)} own rows and {len(kept_other)} of "
                     f"its {len(other)} other rows, each set thinned evenly over the day; rows clipped to "
                     f"{ROW_CHARS} characters")
    return packet


def subject(packet: dict) -> str:
    """Who or what a packet is about: the agent's persona key, or the scene's key."""
    return packet["agent"]["key"] if "agent" in packet else packet["scene"]["key"]


def _scene_row(e: Event, names: dict[str, str], rooms: dict[str, str], room_key: str) -> dict:
    """One row of a scene: an event of the room, as a staff member would have seen it."""
    who = names.get(e.actor.persona.key, "") if e.actor_id else ""
    data = e.data or {}
    if e.kind == "communicate":
        target = names.get(data.get("target") or "", "")
        how = {"whisper": "whispers", "shout": "shouts"}.get(data.get("volume"), "says")
        text = f'{who} {how}{f" to {target}" if target else ""}: "{e.text}"'
    elif e.kind == "move":  # one hop, from a room to the next: seen leaving in one, arriving in the other
        text = (f"{who} leaves toward the {rooms.get(data.get('to'), 'next room')}" if data.get("from") == room_key
                else f"{who} comes in from the {rooms.get(data.get('from'), 'next room')}")
    elif e.kind == "wake":
        text = f"{who} wakes"
    elif e.kind == "sleep":
        text = f"{who} falls asleep"
    else:  # interact, attack, death, spouse_collision: the log's own sentence
        text = e.text
    own = e.kind in SCENE_DEEDS
    return {"id": f"e{e.pk}", "tick": e.tick, "kind": e.kind, "own": own, **({"by": who} if who else {}),
            "text": _clip(text)}


def scene(run: Run, room_key: str, first: int, last: int, *, budget: int = PACKET_TOKENS) -> dict:
    """The scene in room `room_key` over ticks [first, last] (both committed), bounded by `budget`."""
    room = Room.objects.filter(scenario=run.scenario, key=room_key).first()
    if room is None:
        raise PacketError(f"scene: the {run.scenario.slug} scenario has no room {room_key!r}")
    if not 0 <= first <= last:
        raise PacketError(f"scene {room_key}@{first}-{last}: give ticks a-b with 0 <= a <= b")
    if last >= run.tick:
        raise PacketError(f"scene {room_key}@{first}-{last}: run {run.pk} has committed {run.tick} ticks "
                          f"(0-{run.tick - 1})")
    agents = list(AgentState.objects.filter(run=run).select_related("persona__home_node").order_by("persona__key"))
    names = {a.persona.key: a.persona.display_name for a in agents}
    rooms = dict(Room.objects.filter(scenario=run.scenario).values_list("key", "name"))
    # Who was there: the ship folded to the window's start, then everyone who came in during it.
    ship = start_of_run({a.persona.key: a.persona.home_node.key for a in agents})
    for row in (Event.objects.filter(run=run, tick__lt=first, kind__in=STATE_KINDS).order_by("seq")
                .values_list("tick", "kind", "actor__persona__key", "room__key", "data")):
        apply(ship, LoggedEvent(*row))
    there = {k for k, at in ship.items() if at.room == room_key and at.alive}
    # What happened there: said, done or seen in the room (a departure is seen where it starts).
    events = list(Event.objects.filter(run=run, tick__gte=first, tick__lte=last)
                  .filter(Q(room=room, kind__in=SCENE_DEEDS + SCENE_COMINGS) | Q(kind="move", data__from=room_key))
                  .select_related("actor__persona").order_by("seq"))
    there |= {e.actor.persona.key for e in events if e.kind == "move" and e.room_id == room.pk and e.actor_id}
    rows = [_scene_row(e, names, rooms, room_key) for e in events]
    packet = {
        "id": f"r{run.pk}.scene.{room_key}.{first}-{last}", "run": run.pk, "day": first // TICKS_PER_DAY + 1,
        "ticks": [first, last],
        "scene": {"key": f"scene:{room_key}@{first}-{last}", "room": room.name,
                  "present": [names[k] for k in sorted(there)]},
        "world": {"scenario": run.scenario.slug, "foreign_words": foreign_words(run.scenario.slug)},
        "items": [], "recalled": [], "cut": "",
    }
    return bounded(packet, rows, budget)


def busiest_scenes(run: Run, day: int, n: int, window: int = SCENE_TICKS) -> list[tuple[str, int, int]]:
    """The `n` (room, first, last) windows of `window` ticks of `day` with the most said and done in
    them (ties: room key, then first tick), in that order."""
    first, last = day_ticks(day)
    last = min(last, run.tick - 1)
    if first > last:
        raise PacketError(f"day {day}: run {run.pk} has committed {run.tick} ticks, so day {day} has not begun "
                          f"(days have {TICKS_PER_DAY} ticks)")
    counts = Counter((room, first + (tick - first) // window * window)
                     for room, tick in Event.objects.filter(run=run, tick__gte=first, tick__lte=last,
                                                            kind__in=SCENE_DEEDS, room__isnull=False)
                     .values_list("room__key", "tick"))
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
    return [(room, start, min(start + window - 1, last)) for (room, start), _ in ranked]


def day_packets(run: Run, day: int, agent_keys: list[str] | None = None, budget: int = PACKET_TOKENS) -> list[dict]:
    """One packet per agent (persona-key order) that has rows that day; `agent_keys` narrows them."""
    if day < 1:
        raise PacketError(f"day: a day from 1, not {day}")
    first, _ = day_ticks(day)
    if first >= run.tick:
        raise PacketError(f"day {day}: run {run.pk} has committed {run.tick} ticks, so day {day} has not begun "
                          f"(days have {TICKS_PER_DAY} ticks)")
    agents = AgentState.objects.filter(run=run).select_related("persona", "run__scenario").order_by("persona__key")
    if agent_keys:
        unknown = sorted(set(agent_keys) - {a.persona.key for a in agents})
        if unknown:
            raise PacketError(f"agents: run {run.pk} has no agent {', '.join(unknown)}")
        agents = [a for a in agents if a.persona.key in agent_keys]
    cast = sorted(run.scenario.personas.values_list("display_name", flat=True))
    packets = [agent_day(run, agent, day, cast=cast, budget=budget) for agent in agents]
    return [p for p in packets if p["items"]]
