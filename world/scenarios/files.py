"""Scenario files in and out of the database: `export_yaml(scenario)` and `import_yaml(text)`.

Import checks the whole file first (world/scenarios/file_format.py) and writes nothing unless all of
it is sound; then it writes every row in one transaction, in the file's order (rows keep their
relative ids, so a run on an imported copy of a scenario tells the same story as on the original).
A scenario that runs have used is never replaced: runs must not change under their feet.
"""
from __future__ import annotations

import datetime
from pathlib import Path

import yaml
from django.apps import apps as global_apps
from django.db import transaction

from world.rules.scenario_check import Problem, check_world
from world.scenarios.file_format import FORMAT, ScenarioFileError, read_scenario, sketch
from world.scenarios.voice import full_phrasebook, full_voice

SHIPPED = Path(__file__).resolve().parent  # scenario files that ship with Voyage: <slug>.yaml

HEADER = ("# A Voyage scenario file (format {format}): rooms, exits, personas, props and the identity ladder.\n"
          "# See the README, \"Scenario files\". Check and load it with\n"
          "#   python manage.py scenario import FILE [--replace]\n")


def shipped_file(slug: str) -> Path:
    return SHIPPED / f"{slug}.yaml"


def scenario_data(scenario) -> dict:
    """A scenario as the file format's data, rows in id order. A row pointing into another scenario
    (possible only through a careless edit) shows as an unknown key, which the world's rules refuse."""
    rooms = {r.pk: r for r in scenario.rooms.order_by("id")}
    personas = {p.pk: p for p in scenario.personas.order_by("id")}

    def room(pk):
        return rooms[pk].key if pk in rooms else f"(room {pk} of another scenario)"

    def persona(pk):
        return None if pk is None else personas[pk].key if pk in personas else f"(persona {pk} of another scenario)"

    return {
        "voyage_scenario": FORMAT,
        "slug": scenario.slug,
        "name": scenario.name,
        "start_date": scenario.start_date,
        "premise": scenario.premise,
        "voice": full_voice(scenario.voice),
        "phrasebook": full_phrasebook(scenario.phrasebook),
        "rooms": [{"key": r.key, "name": r.name, "deck": r.deck, "scale": r.scale, "ambient_noise": r.ambient_noise,
                   "private": r.private, "description": r.description} for r in rooms.values()],
        "exits": [[room(a), room(b)] for a, b in scenario.exits.order_by("id").values_list("a_id", "b_id")],
        "personas": [{"key": p.key, "display_name": p.display_name, "home": room(p.home_node_id),
                      "spouse": persona(p.spouse_id), "history": p.history, "secret": p.secret, "fear": p.fear,
                      "soul": [s.text for s in p.soul_entries.all()],
                      **({"sex": p.sex} if p.sex else {}), **({"age": p.age} if p.age is not None else {})}
                     for p in personas.values()],
        "props": [{"name": p.name, "kind": p.kind, "room": room(p.room_id), "owner": persona(p.owner_id),
                   "description": p.description} for p in scenario.props.order_by("id")],
        "rungs": [{"level": r.level, "name": r.name, "reveals": r.reveals, "allowed_actions": list(r.allowed_actions),
                   "gate": {"prop": r.gate_prop, "min_ticks_since_previous": r.min_ticks_since_previous}
                   if r.gate_prop else None, "knows": list(r.knows)} for r in scenario.rungs.order_by("level")],
    }


def world_problems(scenario) -> list[Problem]:
    """The world's rules over a scenario's rows as they stand (inside a transaction: as they would be)."""
    return check_world(sketch(scenario_data(scenario)))


def copy_scenario(scenario, slug: str, name: str):
    """A new scenario with the same world under another slug (to edit one that runs have used)."""
    data = scenario_data(scenario)
    data.update(slug=slug, name=name)
    with transaction.atomic():
        return write(data)


class _Dumper(yaml.SafeDumper):
    """Multi-line text as literal blocks (paragraphs stay readable); keys in the order written."""


def _text(dumper, value: str):
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


def _list(dumper, value: list):
    """Short lists of words ([a, b] exits, allowed actions) on one line; anything longer as a block."""
    flow = all(isinstance(v, str) and "\n" not in v and len(v) < 40 for v in value) and sum(map(len, value)) < 80
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow)


_Dumper.add_representer(str, _text)
_Dumper.add_representer(list, _list)


def export_yaml(scenario) -> str:
    return data_yaml(scenario_data(scenario))


def data_yaml(data: dict) -> str:
    """A scenario's data (the file format's) as the text of its file."""
    body = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return HEADER.format(format=FORMAT) + body


def import_yaml(text: str, *, replace: bool = False, apps=global_apps):
    """Load a scenario file; returns the Scenario. Raises ScenarioFileError (every problem, with key
    path, line and rule) and writes nothing when the file is not sound or the slug is taken."""
    data, problems = read_scenario(text)
    if problems:
        raise ScenarioFileError(problems)
    Scenario = apps.get_model("world", "Scenario")
    with transaction.atomic():
        existing = Scenario.objects.filter(slug=data["slug"]).first()
        if existing is not None:
            if not replace:
                raise ScenarioFileError([Problem("slugs are unique", "slug", f"scenario {data['slug']!r} is already "
                                                 f"installed; import with --replace to replace it",
                                                 line=_line_of_slug(text))])
            used = apps.get_model("voyage", "Run").objects.filter(scenario=existing).count()
            if used:
                raise ScenarioFileError([Problem("a scenario used by runs never changes under them", "slug",
                                                 f"scenario {data['slug']!r} is used by {used} run(s); import this "
                                                 f"file under another slug", line=_line_of_slug(text))])
            delete_scenario(existing, apps)
        return write(data, apps)


def delete_scenario(scenario, apps=global_apps) -> None:
    """A scenario with all its rows. Personas hold their home rooms with PROTECT (a room cannot go
    from under someone living in it), so the rows go in the order they depend on each other. A
    scenario that runs have used cannot be deleted (its runs PROTECT it)."""
    with transaction.atomic():
        for model in ("Prop", "SoulEntry", "Persona", "Exit", "Rung", "Room"):
            manager = apps.get_model("world", model).objects
            rows = manager.filter(persona__scenario_id=scenario.pk) if model == "SoulEntry" \
                else manager.filter(scenario_id=scenario.pk)
            if model == "Persona":
                rows.update(spouse=None)
            rows.delete()
        apps.get_model("world", "Scenario").objects.filter(pk=scenario.pk).delete()


def _line_of_slug(text: str) -> int | None:
    return next((n for n, line in enumerate(text.splitlines(), start=1) if line.startswith("slug:")), None)


def write(data: dict, apps=global_apps):
    """Create the rows of a checked file, in its order."""
    m = {name: apps.get_model("world", name) for name in ("Scenario", "Room", "Exit", "Persona", "SoulEntry", "Prop",
                                                           "Rung")}
    start = data["start_date"]
    # A migration older than Scenario.voice (0005) sees a Scenario without it; 0005 then writes it down.
    has_voice = any(f.name == "voice" for f in m["Scenario"]._meta.get_fields())
    texts = {"voice": dict(data.get("voice") or {}), "phrasebook": dict(data.get("phrasebook") or {})}
    scenario = m["Scenario"].objects.create(
        slug=data["slug"], name=data["name"], premise=data.get("premise") or "",
        start_date=start if isinstance(start, datetime.date) else datetime.date.fromisoformat(start),
        **(texts if has_voice else {}))
    rooms = {}
    for r in data["rooms"]:
        rooms[r["key"]] = m["Room"].objects.create(
            scenario=scenario, key=r["key"], name=r["name"], deck=r["deck"], scale=r["scale"],
            ambient_noise=r["ambient_noise"], private=r["private"], description=r.get("description") or "")
    m["Exit"].objects.bulk_create([m["Exit"](scenario=scenario, a=rooms[a], b=rooms[b]) for a, b in data["exits"]])
    personas = {}
    for p in data["personas"]:
        personas[p["key"]] = m["Persona"].objects.create(
            scenario=scenario, key=p["key"], display_name=p["display_name"], history=p["history"], secret=p["secret"],
            fear=p["fear"], home_node=rooms[p["home"]],
            **{k: p[k] for k in ("sex", "age") if p.get(k) is not None})  # optional; older migrations pass none
        m["SoulEntry"].objects.bulk_create([m["SoulEntry"](persona=personas[p["key"]], position=i, text=t)
                                            for i, t in enumerate(p.get("soul") or [])])
    for p in data["personas"]:
        if p.get("spouse"):
            m["Persona"].objects.filter(pk=personas[p["key"]].pk).update(spouse=personas[p["spouse"]])
    m["Prop"].objects.bulk_create([
        m["Prop"](scenario=scenario, name=p["name"], kind=p["kind"], room=rooms[p["room"]], description=p["description"],
                  owner=personas[p["owner"]] if p.get("owner") else None) for p in data["props"]])
    # A migration older than Rung.knows (0004) sees a Rung without it; 0004 then writes it down.
    has_knows = any(f.name == "knows" for f in m["Rung"]._meta.get_fields())
    m["Rung"].objects.bulk_create([
        m["Rung"](scenario=scenario, level=r["level"], name=r["name"], reveals=r["reveals"],
                  allowed_actions=list(r["allowed_actions"]), gate_prop=(r.get("gate") or {}).get("prop", ""),
                  min_ticks_since_previous=(r.get("gate") or {}).get("min_ticks_since_previous", 0),
                  **({"knows": list(r["knows"])} if has_knows else {}))
        for r in data["rungs"]])
    return scenario
