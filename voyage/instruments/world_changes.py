"""What interventions change in a run's world beyond its event log and memory rows: objects placed,
moved or taken away, and personas' texts, for this run only (the scenario's rows stay as they are).

`apply_world_changes` is called by RunWorld once it has loaded the scenario's props and the cast;
`persona_of_run` gives a memory job (or an interview) the persona as the run has it. Both fold the
run's applied interventions in the order they were applied."""
from __future__ import annotations

import copy

from voyage.instruments.models import Intervention
from world.models import Prop

OBJECT_KINDS = (Intervention.OBJECT_PLACE, Intervention.OBJECT_MOVE, Intervention.OBJECT_REMOVE)


def objects_of(run, props: dict[int, Prop], changes) -> dict[int, Prop]:
    """The run's objects (id -> Prop) after `changes`: placed objects are unsaved Props with the
    negative id of their intervention, never written to the scenario. Objects are named uniquely
    (case aside), so a change names its object by name."""
    out = dict(props)
    by_name = {p.name.lower(): pid for pid, p in out.items()}
    for iv in changes:
        if iv.kind == Intervention.OBJECT_PLACE:
            made = Prop(id=-iv.pk, scenario_id=run.scenario_id, name=iv.name, description=iv.text, room_id=iv.room_id,
                        kind="scenery")
            out[made.id] = made
            by_name[iv.name.lower()] = made.id
        elif iv.kind == Intervention.OBJECT_MOVE and iv.name.lower() in by_name:
            moved = copy.copy(out[by_name[iv.name.lower()]])
            moved.room_id = iv.room_id
            out[moved.id] = moved
        elif iv.kind == Intervention.OBJECT_REMOVE and iv.name.lower() in by_name:
            out.pop(by_name.pop(iv.name.lower()))
    return out


def object_changes(run, *, applied_only: bool = True, upto_tick: int | None = None):
    rows = Intervention.objects.filter(run=run, kind__in=OBJECT_KINDS)
    if applied_only:
        rows = rows.filter(applied=True)
    if upto_tick is not None:
        rows = rows.filter(tick__lte=upto_tick)
    return list(rows.order_by("tick", "id"))


def persona_changes(run_id: int, upto_tick: int | None = None) -> dict[int, dict[str, str]]:
    """persona id -> {field: text} of the run's applied persona changes (up to a tick)."""
    rows = Intervention.objects.filter(run_id=run_id, kind=Intervention.PERSONA, applied=True)
    if upto_tick is not None:
        rows = rows.filter(tick__lte=upto_tick)
    out: dict[int, dict[str, str]] = {}
    for persona_id, field, text in rows.order_by("tick", "id").values_list("agent__persona_id", "field", "text"):
        out.setdefault(persona_id, {})[field] = text
    return out


def apply_world_changes(world) -> None:
    """RunWorld's props and personas as this run's interventions left them."""
    changes = object_changes(world.run)
    if changes:
        world.props = objects_of(world.run, world.props, changes)
        world.props_by_room = {rid: [] for rid in world.rooms}
        for prop in sorted(world.props.values(), key=lambda p: (p.id < 0, abs(p.id))):  # scenario's first, then placed
            world.props_by_room[prop.room_id].append(prop)
    for persona_id, fields in persona_changes(world.run.pk).items():
        agent = world.by_persona.get(persona_id)
        if agent is not None:
            agent.persona = changed(agent.persona, fields)


def persona_of_run(agent, upto_tick: int | None = None):
    """The agent's persona with its run's changes (up to a tick), an unsaved copy if any."""
    fields = persona_changes(agent.run_id, upto_tick).get(agent.persona_id)
    return changed(agent.persona, fields) if fields else agent.persona


def changed(persona, fields: dict[str, str]):
    persona = copy.copy(persona)
    for name, text in fields.items():
        setattr(persona, name, text)
    return persona
