"""Installing a scenario written as a Python data module (world/scenarios/data_1912.py) through the
same checks and writer as a scenario file: a broken scenario is refused with every problem named,
and nothing is written."""
from __future__ import annotations

from django.apps import apps as global_apps
from django.db import transaction

from world.scenarios.file_format import FORMAT, check_data
from world.scenarios.files import write


class ScenarioError(ValueError):
    pass


def module_data(data) -> dict:
    """A data module in the scenario file format. Props come in the order 1912 has always had them
    (each persona's name then fear prop, then alien, then scenery), so their ids keep their order."""
    props = []
    for p in data.PERSONAS:
        props += [{**p[field], "kind": kind, "owner": p["key"]} for kind, field in (("name", "name_prop"),
                                                                                    ("fear", "fear_prop"))]
    props += [{**s, "kind": "alien", "owner": None} for s in data.ALIEN_PROPS]
    props += [{**s, "kind": "scenery", "owner": None} for s in data.SCENERY_PROPS]
    return {
        "voyage_scenario": FORMAT, "slug": data.SLUG, "name": data.NAME, "start_date": data.START_DATE,
        "premise": data.PREMISE.strip(), "rooms": list(data.ROOMS), "exits": [list(e) for e in data.EXITS],
        "personas": [{"key": p["key"], "display_name": p["display_name"], "home": p["home_node"],
                      "spouse": p.get("spouse"), "history": p["history"], "secret": p["secret"], "fear": p["fear"],
                      "soul": list(p["soul"])} for p in data.PERSONAS],
        "props": props,
        "rungs": list(data.RUNGS),
    }


def install(data, apps=global_apps):
    """Create the scenario; returns it. Refuses (ScenarioError) a broken one, or one whose slug exists."""
    scenario = module_data(data)
    problems = check_data(scenario)
    if problems:
        raise ScenarioError(f"scenario {data.SLUG!r} is broken: " + "; ".join(str(p) for p in problems))
    if apps.get_model("world", "Scenario").objects.filter(slug=data.SLUG).exists():
        raise ScenarioError(f"scenario {data.SLUG!r} is already installed")
    with transaction.atomic():
        return write(scenario, apps)


def builtin(slug: str):
    """The data module of a scenario that ships with Voyage as Python (others ship as YAML files)."""
    if slug == "1912":
        from world.scenarios import data_1912

        return data_1912
    raise ScenarioError(f"no built-in scenario {slug!r} (built in: 1912)")
