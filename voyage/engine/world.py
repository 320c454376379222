"""RunWorld: a run's state held in memory between ticks.

Loaded from the database when a chunk of ticks starts; every change a tick makes is applied here
and buffered in a TickWriter, which commits it together with the run's tick counter. If a commit
fails, the world is thrown away and loaded again: the database is the only truth.
"""
from __future__ import annotations

from bisect import insort
from collections import deque
from dataclasses import dataclass
from functools import cached_property

from django.db import connection

from memories.context import hot_capacity, load_recalled
from memories.models import Memory, TrustEntry
from memories.working import WorkingMemory
from voyage.instruments.world_changes import apply_world_changes
from voyage.models import Event, Run
from world.models import AgentState, Exit, Prop, Room, SoulEntry
from world.rules.dependency import Balls
from world.rules.graph import RoomGraph
from world.rules.ladder import PEOPLE_NAMES, knows, rung_spec
from world.rules.names_in_text import NamesInText
from world.scenarios.voice import Voice
from world.rules.perception import Person, Place, Situation, Thing, perceive, rooms_as_targets


@dataclass(eq=False)
class HotLine:
    tick: int
    kind: str
    text: str
    importance: int = 1
    depth: int = 0
    row_id: int | None = None
    row: Memory | None = None  # a row buffered this tick: its id arrives when the tick commits
    writer_tick: int | None = None  # the tick whose commit inserts that row

    @property
    def id(self) -> int | None:
        return self.row_id if self.row_id is not None else (self.row.pk if self.row is not None else None)


# What the digest reports besides speech (voyage.engine.steps.digest).
NOTABLE = ("rung", "death", "attack", "attrition")


class SinceDigest:
    """What the digest (voyage.engine.steps.digest) reads of the events since the last one: how many
    words were said, the latest three, and the texts of the notable events — not the events
    themselves: at 2,048 agents ten ticks of Event objects held for one log line were tens of MB."""

    def __init__(self):
        self.said = 0
        self.latest_said: deque[str] = deque(maxlen=3)
        self.notable: list[str] = []

    def add(self, event: Event) -> None:
        if event.kind == "communicate":
            self.said += 1
            self.latest_said.append(event.text)
        elif event.kind in NOTABLE:
            self.notable.append(event.text)


# An agent's newest rows, newest first (HotLine's fields).
HOT_ROWS = (f"SELECT tick, kind, text, importance, depth, id FROM {Memory._meta.db_table} "
            "WHERE agent_id = %s ORDER BY id DESC LIMIT %s")


class RunWorld:
    def __init__(self, run: Run, minds: list[int] | None = None):
        """`minds`: the agents whose memory (hot window, working memory) to load; all by default.
        The inspector loads one, to build that agent's context without reading everyone's."""
        self.run = run
        self.seed = run.seed
        scenario = run.scenario
        self.scenario = scenario
        self.voice = Voice(scenario.voice)  # the world's texts (world/scenarios/voice.py)
        self.rungs = scenario.rung_specs()
        self.rooms: dict[int, Room] = {r.id: r for r in Room.objects.filter(scenario=scenario)}
        self.rooms_by_name = {r.name: r.id for r in self.rooms.values()}
        exits = list(Exit.objects.filter(scenario=scenario).values_list("a_id", "b_id"))
        self.graph = RoomGraph(self.rooms, exits)
        self.props: dict[int, Prop] = {p.id: p for p in Prop.objects.filter(scenario=scenario)}
        self.props_by_room: dict[int, list[Prop]] = {rid: [] for rid in self.rooms}
        for prop in self.props.values():
            self.props_by_room[prop.room_id].append(prop)
        # What no tick changes, built once and shared by every agent's perception.
        self.room_targets = rooms_as_targets(self.rooms_by_name)
        self.places = {rid: Place(rid, r.name) for rid, r in self.rooms.items()}
        self.exits_of = {rid: tuple(self.places[n] for n in self.graph.neighbours[rid]) for rid in self.rooms}
        agents = AgentState.objects.filter(run=run).select_related("persona").order_by("id")
        self.agents: dict[int, AgentState] = {a.id: a for a in agents}
        # Who is in each room (ids ascending, the dead included), kept by `move`: no scan of everyone.
        self.in_room: dict[int, list[int]] = {rid: [] for rid in self.rooms}
        for a in self.agents.values():
            self.in_room.setdefault(a.location_id, []).append(a.id)
        self.by_persona = {a.persona_id: a for a in self.agents.values()}
        apply_world_changes(self)  # objects and personas as this run's interventions left them
        # What is in each room, shared by every agent's perception (after the interventions' objects).
        self.things_in = {rid: tuple(Thing(p.id, p.name) for p in props) for rid, props in self.props_by_room.items()}
        self.soul: dict[int, list[str]] = {}
        for entry in SoulEntry.objects.filter(persona__scenario=scenario):
            self.soul.setdefault(entry.persona_id, []).append(entry.text)
        self.hot: dict[int, deque[HotLine]] = {}
        limit = hot_capacity(run)  # the hot window (and in the cached layout the log's slack)
        minds = list(self.agents) if minds is None else minds
        with connection.cursor() as cur:  # one cursor, one statement: at 2,048 agents the ORM's work per query took seconds
            for aid in minds:
                cur.execute(HOT_ROWS, [aid, limit])
                self.hot[aid] = deque((HotLine(*r) for r in reversed(cur.fetchall())), maxlen=limit)
        self.memory = WorkingMemory(run, minds)  # compaction counters, summaries, latest dream
        load_recalled(self, [self.agents[aid] for aid in minds])  # the rows their committed recall states name
        last = Event.objects.filter(run=run).order_by("-seq").values_list("seq", flat=True).first()
        self._seq = -1 if last is None else last
        self.since_digest = SinceDigest()  # what the digest reads of the events since the last one (or this load)
        ledger = TrustEntry.objects.filter(run=run)
        if len(minds) < len(self.agents):  # each agent reads only its own entries: the inspector's one
            ledger = ledger.filter(agent_id__in=minds)
        self.trust: dict[tuple[int, int], TrustEntry] = {(t.agent_id, t.other_id): t for t in ledger}
        self.trust_of: dict[int, list[TrustEntry]] = {}  # the same entries by whose they are, in the ledger's order
        for entry in self.trust.values():
            self.trust_of.setdefault(entry.agent_id, []).append(entry)

    def next_seq(self) -> int:
        """Events are numbered run-wide in the order they happen (resumes continue the count)."""
        self._seq += 1
        return self._seq

    # --- who is where ---------------------------------------------------------------------
    def living(self) -> list[AgentState]:
        return [a for a in self.agents.values() if a.alive]

    def occupants(self, room_id: int, exclude: int | None = None) -> list[AgentState]:
        """The living agents in the room, in id order (the order RunWorld.agents holds them)."""
        agents = self.agents
        return [agents[i] for i in self.in_room.get(room_id, ()) if i != exclude and agents[i].alive]

    def move(self, agent: AgentState, room_id: int) -> None:
        """The one way an agent changes room: its location and the room index change together."""
        self.in_room[agent.location_id].remove(agent.id)
        insort(self.in_room.setdefault(room_id, []), agent.id)
        agent.location_id = room_id

    def seen_as(self, observer: AgentState, subject: AgentState) -> str:
        """How the observer's memory names the subject: by name once its rung knows people's names."""
        return subject.persona.display_name if self.knows(observer, PEOPLE_NAMES) else "someone (unknown)"

    def knows(self, agent: AgentState, fact: str) -> bool:
        """What the agent's rung reveals (world.rules.ladder.KNOWLEDGE): the one capability lookup."""
        return knows(self.rungs, agent.rung, fact)

    @cached_property
    def balls(self) -> Balls:
        """The rooms within k exits of a room, as the out-of-order schedule's rule asks for them
        (voyage/engine/ahead.py): computed once for the run, not again at each stretch."""
        return Balls(self.graph.neighbours)

    @cached_property
    def room_names(self) -> NamesInText:
        """The room names, to find in a prompt (the action schema's rooms): built once, when first asked."""
        return NamesInText(self.rooms_by_name)

    def room_name(self, room_id: int) -> str:
        return self.rooms[room_id].name

    # --- perception -----------------------------------------------------------------------
    def situation(self, agent: AgentState) -> Situation:
        room = self.rooms[agent.location_id]
        people = [
            Person(
                agent_id=o.id,
                display_name=o.persona.display_name,
                asleep=o.asleep,
                label=self._label(agent.id, o.id),
            )
            for o in self.occupants(room.id, exclude=agent.id)
        ]
        return perceive(
            agent_id=agent.id,
            rung=agent.rung,
            knows=rung_spec(self.rungs, agent.rung).knows,
            room=self.places[room.id],
            room_description=room.description,
            scale=room.scale,
            ambient_noise=room.ambient_noise,
            people=people,
            things=self.things_in[room.id],
            exits=self.exits_of[room.id],
            rooms_by_name=self.rooms_by_name,
            room_targets=self.room_targets,
        )

    def _label(self, agent_id: int, other_id: int) -> str | None:
        """The ledger's label, once the agent has met them knowing names (see TrustEntry.known_by_name)."""
        entry = self.trust.get((agent_id, other_id))
        return entry.label if entry and entry.known_by_name else None
