"""Interventions: change a run's world at a tick, to see what follows.

`intervene` is the one way in (the run overview, the API, the admin and `manage.py intervene` call
it): it checks the intervention against the scenario and the run, refusing with a message that
names what is wrong and writing nothing, then records it and, when the run stands at its tick,
applies it at once. `apply_due` is what the tick loop calls when a run reaches a tick with
interventions waiting (a replay's or a fork's copies, or ones scheduled ahead).

Applying writes, in one transaction: the memory rows of those who perceive it, stamped with the
run's tick (so they are in their prompts from the next tick on), and one event of kind
`intervention` naming what was done and by whom. Perception follows the acoustic matrix
(world.rules.acoustics): a sound is routed as a shout (everyone in the room HEARs it, sleepers too;
quiet rooms next door hear that something loud happened there, with no content; nothing beyond); a
visible change is seen by everyone awake in the room, and no one else.
"""
from __future__ import annotations

from django.db import transaction
from django.db.models import F, Max

from memories.importance import importance_of
from memories.models import Memory, MemoryKind
from voyage.instruments.models import Intervention
from voyage.instruments.text import clean_text as checked_text
from voyage.instruments.world_changes import OBJECT_KINDS, object_changes, objects_of
from voyage.models import Event, Run
from world.models import AgentState, Exit, Prop, Room
from world.rules.acoustics import HEARD, SHOUT_NEARBY, Listener, route_speech

MAX_TEXT = 2_000
SEEN = "SEEN"
PLANTED_IMPORTANCE = 6  # as a reflection: something the agent holds as its own thought
STATES = (Run.QUEUED, Run.PAUSED)


class InterventionError(ValueError):
    """The intervention breaks a rule of the scenario or the run; the message names it."""


def intervene(run: Run, kind: str, text: str = "", *, tick=None, room: str | None = None,
              how: str = Intervention.SOUND, agent: str | None = None, name: str = "", field: str = "",
              made_by: str = "manage.py") -> Intervention:
    """Record an intervention on `run` (a paused or queued run) at `tick` (None: its current tick)
    and apply it now if the run stands there. `room` and `agent` are keys; `name` an object's name;
    `field` the persona's text to change (history, fear, secret)."""
    run = Run.objects.select_related("scenario").get(pk=run.pk)
    fields = check(run, kind, text, tick, room, how, agent, name=name, field=field)
    with transaction.atomic():
        made = Intervention.objects.create(run=run, made_by=made_by[:150] or "manage.py", **fields)
        if made.tick == run.tick:
            apply(run, made)
    return made


def check(run: Run, kind: str, text, tick, room, how, agent, *, name: str = "", field: str = "") -> dict:
    """The intervention's fields, or InterventionError naming what is wrong."""
    if run.state not in STATES:
        raise InterventionError(f"run {run.pk} is {run.state}: pause it first (interventions go into a paused "
                                f"run, or a fork, which waits paused at its tick)")
    if run.claimed_by:
        raise InterventionError(f"run {run.pk} is {run.state} but a worker ({run.claimed_by}) is still finishing its "
                                f"tick: try again in a moment")
    tick = run.tick if tick is None or tick == "" else tick
    if not isinstance(tick, int) or isinstance(tick, bool):
        raise InterventionError(f"tick: a whole number, not {tick!r}")
    if not run.tick <= tick < run.target_ticks:
        raise InterventionError(f"tick: run {run.pk} stands at tick {run.tick} and ends at {run.target_ticks}: "
                                f"intervene at a tick from {run.tick} to {run.target_ticks - 1} (earlier: fork it)")
    if kind in OBJECT_KINDS:
        return check_object(run, kind, tick, text, room, name)
    text = clean_text(text)
    if kind == Intervention.ROOM_EVENT:
        found = Room.objects.filter(scenario=run.scenario, key=room).first() if isinstance(room, str) else None
        if found is None:
            raise InterventionError(f"room: the scenario {run.scenario.slug!r} has no room {room!r}")
        if how not in (Intervention.SOUND, Intervention.SIGHT):
            raise InterventionError(f"how: {Intervention.SOUND!r} or {Intervention.SIGHT!r}, not {how!r}")
        return {"kind": kind, "tick": tick, "text": text, "room": found, "how": how}
    if kind == Intervention.MEMORY:
        found = AgentState.objects.select_related("persona").filter(run=run, persona__key=agent).first() \
            if isinstance(agent, str) else None
        if found is None:
            raise InterventionError(f"agent: run {run.pk} has no agent {agent!r}")
        if not found.alive:
            raise InterventionError(f"agent: {found.persona.display_name} ({agent}) is dead: a dead agent "
                                    f"remembers nothing")
        return {"kind": kind, "tick": tick, "text": text, "agent": found}
    if kind == Intervention.PERSONA:
        found = AgentState.objects.select_related("persona").filter(run=run, persona__key=agent).first() \
            if isinstance(agent, str) else None
        if found is None:
            raise InterventionError(f"agent: run {run.pk} has no agent {agent!r}")
        if field not in Intervention.PERSONA_FIELDS:
            raise InterventionError(f"field: one of {', '.join(Intervention.PERSONA_FIELDS)}, not {field!r}")
        return {"kind": kind, "tick": tick, "text": text, "agent": found, "field": field}
    raise InterventionError(f"kind: one of {', '.join(k for k, _ in Intervention.KINDS)}, not {kind!r}")


def clean_text(text) -> str:
    return checked_text(text, field="text", empty="say what happens", limit=MAX_TEXT, error=InterventionError)


def check_object(run: Run, kind: str, tick: int, text, room, name) -> dict:
    """Objects are named uniquely aboard: a new one needs a new name, a move or removal an object the
    run has (the scenario's, as this run's earlier interventions left them)."""
    name = name.strip() if isinstance(name, str) else ""
    if not name or len(name) > 100:
        raise InterventionError("name: the object's name (1 to 100 characters)")
    world = Prop.objects.filter(scenario=run.scenario)
    aboard = {p.name.lower() for p in objects_of(run, {p.id: p for p in world},
                                                 object_changes(run, applied_only=False)).values()}
    fields = {"kind": kind, "tick": tick, "name": name}
    if kind == Intervention.OBJECT_PLACE and name.lower() in aboard:
        raise InterventionError(f"name: there is already an object called {name!r} aboard")
    if kind != Intervention.OBJECT_PLACE and name.lower() not in aboard:
        raise InterventionError(f"name: run {run.pk} has no object called {name!r}")
    if kind == Intervention.OBJECT_PLACE:
        fields["text"] = clean_text(text)  # what an agent reads when it examines it
    else:
        fields["text"] = f"{name} is {'moved' if kind == Intervention.OBJECT_MOVE else 'taken away'}."
    if kind != Intervention.OBJECT_REMOVE:
        found = Room.objects.filter(scenario=run.scenario, key=room).first() if isinstance(room, str) else None
        if found is None:
            raise InterventionError(f"room: the scenario {run.scenario.slug!r} has no room {room!r}")
        fields["room"] = found
    return fields


# --- applying ------------------------------------------------------------------------------
def apply(run: Run, iv: Intervention) -> None:
    """Write what the intervention changes, and its event. The caller holds the transaction."""
    if iv.kind == Intervention.ROOM_EVENT:
        delivered = perceive_room_event(run, iv)
        data = {"what": iv.kind, "by": iv.made_by, "how": iv.how, "delivered": delivered}
        actor, room_id = None, iv.room_id
    elif iv.kind in OBJECT_KINDS:  # seen as the room is seen: RunWorld loads the run's objects
        data = {"what": iv.kind, "by": iv.made_by, "object": iv.name}
        actor, room_id = None, iv.room_id
    elif iv.kind == Intervention.PERSONA:  # read by identity_text: RunWorld and memory jobs alike
        agent = AgentState.objects.select_related("persona").get(pk=iv.agent_id)
        data = {"what": iv.kind, "by": iv.made_by, "agent": agent.persona.key, "field": iv.field}
        actor, room_id = agent, agent.location_id
    else:
        agent = AgentState.objects.get(pk=iv.agent_id)
        data = {"what": iv.kind, "by": iv.made_by, "agent": agent.persona.key}
        if agent.alive:
            remember(run, agent, MemoryKind.PLANTED, iv.text, PLANTED_IMPORTANCE, iv.tick)
        else:  # scheduled ahead, and the agent died meanwhile: nothing to plant
            data["skipped"] = "the agent had died"
        actor, room_id = agent, agent.location_id
    last = Event.objects.filter(run=run).aggregate(m=Max("seq"))["m"]
    Event.objects.create(run=run, tick=iv.tick, seq=0 if last is None else last + 1, kind="intervention",
                         actor=actor, room_id=room_id, text=iv.text, data=data)
    Intervention.objects.filter(pk=iv.pk).update(applied=True)
    iv.applied = True


def perceive_room_event(run: Run, iv: Intervention) -> dict[str, str]:
    """Memory rows for everyone who perceives it; persona key -> HEARD, SEEN or SHOUT_NEARBY."""
    room = iv.room
    living = list(AgentState.objects.filter(run=run, alive=True).select_related("persona").order_by("persona__key"))
    here = [a for a in living if a.location_id == room.pk]
    by_id = {a.id: a for a in living}
    if iv.how == Intervention.SIGHT:
        modes = [(a.id, SEEN) for a in here if not a.asleep]
    else:
        doors = neighbours(room)
        next_door = [(r.ambient_noise, [Listener(a.id, a.asleep) for a in living if a.location_id == r.pk]) for r in doors]
        routed = route_speech(scale=room.scale, ambient_noise=room.ambient_noise, volume="shout", speaker_id=0,
                              target_id=None, present=[Listener(a.id, a.asleep) for a in here], next_door=next_door)
        modes = [(d.agent_id, d.mode) for d in routed]
    delivered = {}
    for agent_id, mode in modes:
        agent = by_id[agent_id]
        if mode == SHOUT_NEARBY:
            remember(run, agent, MemoryKind.OBSERVED, f"Something loud happened nearby, in the {room.name}.",
                     importance_of(MemoryKind.OBSERVED), iv.tick)
        elif mode == HEARD:
            remember(run, agent, MemoryKind.HEARD, f"In the {room.name}: {iv.text}", importance_of("heard", shout=True),
                     iv.tick)
        else:
            remember(run, agent, MemoryKind.SEEN, f"In the {room.name}: {iv.text}", importance_of(MemoryKind.SEEN),
                     iv.tick)
        delivered[agent.persona.key] = mode
    return dict(sorted(delivered.items()))


def neighbours(room: Room) -> list[Room]:
    pairs = Exit.objects.filter(scenario_id=room.scenario_id).values_list("a_id", "b_id")
    ids = {b if a == room.pk else a for a, b in pairs if room.pk in (a, b)}
    return list(Room.objects.filter(pk__in=ids).order_by("key"))


def remember(run: Run, agent: AgentState, kind: str, text: str, importance: int, tick: int) -> None:
    Memory.objects.create(run=run, agent=agent, tick=tick, kind=kind, text=text, importance=importance)
    AgentState.objects.filter(pk=agent.pk).update(importance_accumulator=F("importance_accumulator") + importance)


# --- the tick loop's side -----------------------------------------------------------------
def due_ticks(run: Run) -> set[int]:
    """The ticks at which this run has interventions waiting (read once when a chunk of ticks starts)."""
    return set(Intervention.objects.filter(run=run, applied=False).values_list("tick", flat=True))


def apply_due(run: Run) -> int:
    """Apply the interventions waiting for the run's current tick, in the order they were made."""
    with transaction.atomic():
        waiting = list(Intervention.objects.filter(run=run, tick=run.tick, applied=False)
                       .select_related("room").order_by("id"))
        for iv in waiting:
            apply(run, iv)
    return len(waiting)


def copy_interventions(source: Run, to: Run, before: int | None = None) -> int:
    """A replay's (all) or a fork's (those before its tick) copies of the source's applied
    interventions, waiting for the new run to reach their ticks."""
    rows = Intervention.objects.filter(run=source, applied=True).order_by("id")
    if before is not None:
        rows = rows.filter(tick__lt=before)
    agents = dict(AgentState.objects.filter(run=to).values_list("persona_id", "id"))
    copies = [Intervention(run=to, tick=iv.tick, kind=iv.kind, text=iv.text, room_id=iv.room_id, how=iv.how,
                           agent_id=agents.get(iv.agent.persona_id) if iv.agent_id else None, made_by=iv.made_by,
                           name=iv.name, field=iv.field)
              for iv in rows.select_related("agent")]
    Intervention.objects.bulk_create(copies)
    return len(copies)


def where(data: dict, who: str, room: str) -> str:
    """What an intervention event touched, as a transcript line says it."""
    what = data.get("what")
    if what == Intervention.MEMORY:
        return f"planted in {who}"
    if what == Intervention.PERSONA:
        return f"{who}'s {data.get('field')}, for this run"
    if what == Intervention.OBJECT_REMOVE:
        return f"{data.get('object')} taken away"
    if what in OBJECT_KINDS:
        return f"{data.get('object')} {'placed' if what == Intervention.OBJECT_PLACE else 'moved'} in the {room}"
    return f"in the {room}"


def count(run: Run) -> int:
    return Intervention.objects.filter(run=run, applied=True).count()
