"""Installing a scenario from a data module (see data_1912.py) into the database, validated first:
a broken scenario is refused with a message saying what is wrong, and nothing is written."""
from __future__ import annotations

import datetime

from django.apps import apps as global_apps
from django.db import transaction

from world.rules.graph import RoomGraph


class ScenarioError(ValueError):
    pass


def validate(data) -> None:
    keys = [r["key"] for r in data.ROOMS]
    problems = []
    if len(set(keys)) != len(keys):
        problems.append("room keys repeat")
    index = {k: i for i, k in enumerate(keys)}
    for a, b in data.EXITS:
        if a not in index or b not in index:
            problems.append(f"exit {a}–{b} names an unknown room")
    if not problems and not RoomGraph(range(len(keys)), [(index[a], index[b]) for a, b in data.EXITS]).is_connected():
        problems.append("the rooms do not form one connected graph")
    for p in data.PERSONAS:
        for field in ("home_node",):
            if p[field] not in index:
                problems.append(f"{p['key']}: unknown home_node {p[field]!r}")
        for prop in ("name_prop", "fear_prop"):
            if p[prop]["room"] not in index:
                problems.append(f"{p['key']}: {prop} in unknown room {p[prop]['room']!r}")
    for prop in list(data.ALIEN_PROPS) + list(data.SCENERY_PROPS):
        if prop["room"] not in index:
            problems.append(f"prop {prop['name']!r} in unknown room {prop['room']!r}")
    levels = sorted(r["level"] for r in data.RUNGS)
    if levels != list(range(len(levels))):
        problems.append("rungs must be numbered 0, 1, 2… without gaps")
    if problems:
        raise ScenarioError(f"scenario {data.SLUG!r} is broken: " + "; ".join(problems))


def install(data, apps=global_apps):
    """Create the scenario; returns it. Refuses (ScenarioError) if the slug already exists."""
    validate(data)
    Scenario = apps.get_model("world", "Scenario")
    Room = apps.get_model("world", "Room")
    Exit = apps.get_model("world", "Exit")
    Persona = apps.get_model("world", "Persona")
    SoulEntry = apps.get_model("world", "SoulEntry")
    Prop = apps.get_model("world", "Prop")
    Rung = apps.get_model("world", "Rung")
    if Scenario.objects.filter(slug=data.SLUG).exists():
        raise ScenarioError(f"scenario {data.SLUG!r} is already installed")
    with transaction.atomic():
        scenario = Scenario.objects.create(slug=data.SLUG, name=data.NAME, premise=data.PREMISE.strip(),
                                           start_date=datetime.date.fromisoformat(data.START_DATE))
        rooms = {}
        for r in data.ROOMS:
            rooms[r["key"]] = Room.objects.create(scenario=scenario, key=r["key"], name=r["name"], deck=r["deck"],
                                                  scale=r["scale"], ambient_noise=r["ambient_noise"],
                                                  private=r["private"], description=r["description"])
        Exit.objects.bulk_create([Exit(scenario=scenario, a=rooms[a], b=rooms[b]) for a, b in data.EXITS])
        personas = {}
        for p in data.PERSONAS:
            personas[p["key"]] = Persona.objects.create(
                scenario=scenario, key=p["key"], display_name=p["display_name"], history=p["history"],
                secret=p["secret"], fear=p["fear"], home_node=rooms[p["home_node"]])
            SoulEntry.objects.bulk_create([SoulEntry(persona=personas[p["key"]], position=i, text=t)
                                           for i, t in enumerate(p["soul"])])
        for p in data.PERSONAS:
            if p.get("spouse"):
                Persona.objects.filter(pk=personas[p["key"]].pk).update(spouse=personas[p["spouse"]])
        props = []
        for p in data.PERSONAS:
            for kind, field in (("name", "name_prop"), ("fear", "fear_prop")):
                spec = p[field]
                props.append(Prop(scenario=scenario, name=spec["name"], description=spec["description"],
                                  room=rooms[spec["room"]], kind=kind, owner=personas[p["key"]]))
        for kind, specs in (("alien", data.ALIEN_PROPS), ("scenery", data.SCENERY_PROPS)):
            props += [Prop(scenario=scenario, name=s["name"], description=s["description"], room=rooms[s["room"]],
                           kind=kind) for s in specs]
        Prop.objects.bulk_create(props)
        # Rung.knows came later (migration 0004): the migration installing 1912 sees a Rung without it.
        has_knows = any(f.name == "knows" for f in Rung._meta.get_fields())
        Rung.objects.bulk_create([
            Rung(scenario=scenario, level=r["level"], name=r["name"], reveals=r["reveals"],
                 allowed_actions=list(r["allowed_actions"]),
                 gate_prop=(r["gate"] or {}).get("prop", ""),
                 min_ticks_since_previous=(r["gate"] or {}).get("min_ticks_since_previous", 0),
                 **({"knows": list(r["knows"])} if has_knows else {}))
            for r in data.RUNGS
        ])
    return scenario


def builtin(slug: str):
    """The data module of a scenario that ships with Voyage."""
    if slug == "1912":
        from world.scenarios import data_1912

        return data_1912
    raise ScenarioError(f"no built-in scenario {slug!r} (built in: 1912)")
