"""Shared helpers for the engine tests (tests/test_engine_*.py).

- ScriptedGateway: the gateway interface answered from a script, recording every request, so a
  test decides exactly what each agent does and reads back exactly what it was shown.
- stage / step: a small hand-set situation on a real database (a fresh run of the 1912 scenario,
  a few agents placed where the test wants them, everyone else off stage), advanced through the
  real tick loop and writer.
- ShipLog: who was where, alive and awake, rebuilt from the event log alone, so a test can check
  the engine's deliveries against the room as it was rather than against the engine's own account.
"""
from __future__ import annotations

import json
import re

from memories.models import Memory
from voyage.engine.runner import advance, create_run
from voyage.gateway.base import ACTION, Gateway, ModelAnswer, ModelRequest
from voyage.models import Event, Run
from world.models import AgentState, Exit, Persona, Room, Scenario

QUIET_TICK = 100  # day 1, 11:00: no reflection, wind-down, nightfall, digest or bulletin fires at 100 -> 101

DEFAULT_TEXTS = {
    "reflection": "[reflection] I keep my head down and my story straight.",
    "importance": "5",
    "trust": "{}",
    "bulletin": "The Ship's Gossip: a scripted day.",
}


def act(action_type: str, target: str | None = None, *, volume: str | None = None, dialogue: str = "",
        duration: int = 3, thought: str = "") -> dict:
    """A well-formed six-key answer."""
    return {"action_type": action_type, "target_character": target, "volume": volume, "dialogue": dialogue,
            "duration_minutes": duration, "internal_monologue": thought}


class ScriptedGateway(Gateway):
    """Answers action calls from `actions` (persona key -> an answer, or a list of answers taken one
    per call, the last repeating) and other purposes from `texts`. An agent the script does not name
    being asked to act is a mistake in the test's staging, and says so."""

    name = "scripted"

    def __init__(self, actions: dict | None = None, texts: dict | None = None):
        self.actions = {k: list(v) if isinstance(v, list) else [v] for k, v in (actions or {}).items()}
        self.texts = {**DEFAULT_TEXTS, **(texts or {})}
        self.requests: list[ModelRequest] = []

    def complete(self, request: ModelRequest) -> ModelAnswer:
        self.requests.append(request)
        if request.purpose != ACTION:
            return ModelAnswer(text=self.texts.get(request.purpose, f"({request.purpose}) scripted"))
        script = self.actions.get(request.agent_key)
        assert script, f"{request.agent_key} was asked to act at tick {request.tick} but has no script"
        answer = script.pop(0) if len(script) > 1 else script[0]
        return ModelAnswer(text=answer if isinstance(answer, str) else json.dumps(answer))

    def prompts(self, purpose: str = ACTION, agent_key: str | None = None) -> list[str]:
        """The full text of every prompt of a purpose (and agent) sent so far, in order."""
        return ["\n\n".join(m["content"] for m in r.messages) for r in self.requests
                if r.purpose == purpose and (agent_key is None or r.agent_key == agent_key)]


# --- staging -------------------------------------------------------------------------------
def scenario() -> Scenario:
    """The 1912 scenario, as migration world/0002 installs it."""
    return Scenario.objects.get(slug="1912")


def new_run(schedule: str = Run.SEQUENTIAL, seed: int = 1912, target_ticks: int = 10_000, **params) -> Run:
    """A run of 1912 with its whole cast (create_run's other defaults): the one helper every test
    makes its runs with. Long by default, so a run staged at any tick never meets its end."""
    return create_run(scenario(), seed=seed, schedule=schedule, target_ticks=target_ticks, **params)


def cast_of(n: int, *, exclude: tuple[str, ...] = ()) -> list[str]:
    """n persona keys, in a stable order."""
    keys = Persona.objects.filter(scenario=scenario()).exclude(key__in=exclude).order_by("key")
    return list(keys.values_list("key", flat=True)[:n])


def stage(run: Run, cast: dict[str, dict], tick: int = QUIET_TICK) -> None:
    """Set the run at `tick` with only `cast` on stage: each member awake, free to act at `tick`,
    at rung 0 unless told, and placed in `room` (a room key); every other persona is off stage
    (dead: it neither acts, hears nor is seen). Any AgentState field may be given per member."""
    rooms = room_ids()
    AgentState.objects.filter(run=run).exclude(persona__key__in=list(cast)).update(alive=False, asleep=False)
    for key, spec in cast.items():
        fields = {"asleep": False, "busy_until_tick": tick, "rung": 0, **spec}
        if "room" in fields:
            fields["location_id"] = rooms[fields.pop("room")]
        assert AgentState.objects.filter(run=run, persona__key=key).update(**fields) == 1, key
    Run.objects.filter(pk=run.pk).update(tick=tick)
    run.refresh_from_db()


def step(run: Run, gateway: Gateway, ticks: int = 1) -> Run:
    """Advance the run through the real tick loop, each tick committed by the real writer."""
    return advance(run, run.tick + ticks, gateway)


def room_ids() -> dict[str, int]:
    return dict(Room.objects.filter(scenario=scenario()).values_list("key", "id"))


def neighbours(room_key: str) -> set[str]:
    exits = Exit.objects.filter(scenario=scenario()).values_list("a__key", "b__key")
    return {b if a == room_key else a for a, b in exits if room_key in (a, b)}


def agent(run: Run, key: str) -> AgentState:
    return AgentState.objects.select_related("persona", "location").get(run=run, persona__key=key)


def name_of(key: str) -> str:
    return Persona.objects.get(scenario=scenario(), key=key).display_name


def memories(run: Run, key: str, **filters) -> list[str]:
    return list(Memory.objects.filter(run=run, agent__persona__key=key, **filters)
                .order_by("id").values_list("text", flat=True))


def events(run: Run, kind: str, **filters) -> list[Event]:
    return list(Event.objects.filter(run=run, kind=kind, **filters).order_by("seq"))


# --- who was where, from the event log alone -------------------------------------------------
class ShipLog:
    """Replays a run's event log from its start (every agent asleep in its home cabin, as
    create_run leaves it): `move` puts the actor in the room, `death` removes it, `sleep` and
    `nightfall` put people to sleep, `wake` wakes them. `before(seq)` is the ship just before the
    event numbered seq."""

    def __init__(self, run: Run):
        self.agents = {a.id: (a.persona.key, a.persona.home_node_id)
                       for a in AgentState.objects.filter(run=run).select_related("persona")}
        self.events = list(Event.objects.filter(run=run).order_by("seq")
                           .values_list("seq", "tick", "kind", "actor_id", "room_id", "data"))

    def snapshots(self, seqs) -> dict[int, "Ship"]:
        wanted = sorted(set(seqs))
        out, ship, i = {}, Ship({aid: home for aid, (_, home) in self.agents.items()}), 0
        for seq, _tick, kind, actor, room, _data in self.events:
            while i < len(wanted) and wanted[i] <= seq:
                out[wanted[i]] = ship.copy()
                i += 1
            if i == len(wanted):
                break
            ship.apply(kind, actor, room)
        for rest in wanted[i:]:
            out[rest] = ship.copy()
        return out


class Ship:
    def __init__(self, location: dict[int, int], dead=(), asleep=None):
        self.location = dict(location)
        self.dead = set(dead)
        self.asleep = set(location) if asleep is None else set(asleep)

    def copy(self) -> "Ship":
        return Ship(self.location, self.dead, self.asleep)

    def apply(self, kind: str, actor: int | None, room: int | None) -> None:
        if kind == "move":
            self.location[actor] = room
        elif kind == "death":
            self.dead.add(actor)
        elif kind == "sleep":
            self.asleep.add(actor)
        elif kind == "wake":
            self.asleep.discard(actor)
        elif kind == "nightfall":
            self.asleep |= set(self.location) - self.dead

    def in_room(self, room_id: int, exclude: int | None = None) -> set[int]:
        return {a for a, r in self.location.items() if r == room_id and a not in self.dead and a != exclude}


PEOPLE_LINE = re.compile(r"^People here: (.*)\.$", re.M)


def people_shown(prompt_user_text: str) -> list[str]:
    """The people an action prompt's situation lists (none when it says nobody else is here)."""
    found = PEOPLE_LINE.search(prompt_user_text)
    return found.group(1).split("; ") if found else []
