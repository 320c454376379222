"""Growing a world (world/scenarios/grow.py, `manage.py scenario grow`): N people, one connected
map, couples kept, the same for the same input; and a grown world imports and runs like any other."""
from __future__ import annotations

import datetime

import pytest

from world.rules.graph import RoomGraph
from world.rules.scenario_check import check_world
from world.scenarios.file_format import read_scenario, sketch
from world.scenarios.grow import GrowError, grow


def room(key, private=False):
    return {"key": key, "name": key.title(), "deck": "D", "scale": "small", "ambient_noise": "low",
            "private": private, "description": f"The {key.title()} opens onto the Hall."}


def persona(key, home, spouse=None):
    return {"key": key, "display_name": key.title() + " Smith", "home": home, "spouse": spouse,
            "history": f"You are {key.title()} Smith of the Hall.", "secret": "s", "fear": "f",
            "soul": [f"{key.title()} Smith remembers the Hall."]}


def props_of(key, room_key):
    return [{"name": f"{key} card", "kind": "name", "room": room_key, "owner": key, "description": "a card"},
            {"name": f"{key} mirror", "kind": "fear", "room": room_key, "owner": key, "description": "a mirror"}]


# A world of five: a couple sharing a cabin, three singles; a private cabin comes first in the file.
TINY = {
    "voyage_scenario": 1, "slug": "tiny", "name": "Tiny", "start_date": datetime.date(1912, 4, 10), "premise": "",
    "rooms": [room("cabin", private=True), room("hall"), room("deck"), room("den", private=True)],
    "exits": [["cabin", "hall"], ["hall", "deck"], ["deck", "den"]],
    "personas": [persona("ann", "cabin", "bob"), persona("bob", "cabin", "ann"), persona("cy", "den"),
                 persona("di", "den"), persona("ed", "hall")],
    "props": [p for k, r in (("ann", "cabin"), ("bob", "hall"), ("cy", "den"), ("di", "deck"), ("ed", "hall"))
              for p in props_of(k, r)] + [{"name": "Clock", "kind": "scenery", "room": "hall", "owner": None,
                                           "description": "It ticks."}],
    "rungs": [{"level": 0, "name": "Blank", "reveals": "r", "allowed_actions": ["move"], "gate": None, "knows": []}],
}


def connected(data) -> bool:
    return RoomGraph([r["key"] for r in data["rooms"]], data["exits"]).is_connected()


@pytest.mark.parametrize("agents", [1, 2, 5, 9, 12, 23])
def test_a_grown_world_holds_exactly_n_people_and_keeps_the_worlds_rules(agents):
    data = grow(TINY, agents)
    assert len(data["personas"]) == agents
    assert check_world(sketch(data)) == []  # unique keys and names, homes, own props, spouses, rungs
    assert connected(data)
    assert data["rungs"] == TINY["rungs"]


def test_the_copies_are_joined_in_a_ring_through_their_first_public_room():
    data = grow(TINY, 15)  # three copies
    assert len(data["rooms"]) == 12
    joins = data["exits"][len(TINY["exits"]) * 3:]
    assert joins == [["hall-1", "hall-2"], ["hall-2", "hall-3"], ["hall-3", "hall-1"]]
    without = {**data, "exits": data["exits"][:len(TINY["exits"]) * 3]}
    assert not connected(without)  # the joins are what holds the copies together


def test_couples_stay_whole_mutual_and_at_home():
    data = grow(TINY, 6)  # the second copy keeps one: a single, never half of the couple
    by_key = {p["key"]: p for p in data["personas"]}
    assert set(by_key) == {"ann-1", "bob-1", "cy-1", "di-1", "ed-1", "cy-2"}
    assert by_key["ann-1"]["spouse"] == "bob-1" and by_key["bob-1"]["spouse"] == "ann-1"
    assert by_key["ann-1"]["home"] == by_key["bob-1"]["home"] == "cabin-1"
    assert {p["owner"] for p in data["props"] if p["owner"]} == set(by_key)  # the left-out people's props go too
    assert len(grow(TINY, 7)["personas"]) == 7  # the couple, when both fit


def test_a_world_of_couples_cannot_be_cut_to_an_odd_number():
    couples = {**TINY, "personas": TINY["personas"][:2],
               "props": [p for p in TINY["props"] if p["owner"] in ("ann", "bob")]}
    with pytest.raises(GrowError, match="parting a couple"):
        grow(couples, 3)


def test_names_in_a_copys_texts_are_its_own():
    data = grow(TINY, 10)
    cy2 = next(p for p in data["personas"] if p["key"] == "cy-2")
    assert cy2["display_name"] == "Cy Smith (2)"
    assert cy2["history"] == "You are Cy Smith (2) of the Hall (2)."
    assert cy2["soul"] == ["Cy Smith (2) remembers the Hall (2)."]
    assert data["rooms"][4]["description"] == "The Cabin (2) opens onto the Hall (2)."


def test_growing_is_deterministic():
    assert grow(TINY, 23) == grow(TINY, 23)
    assert grow(TINY, 23) != grow(TINY, 22)


# --- the command, on the shipped worlds -----------------------------------------------------------
@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["1912", "edelweiss"])
def test_scenario_grow_writes_the_same_loadable_file_each_time(slug, tmp_path):
    from django.core.management import call_command

    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    call_command("scenario", "grow", slug, "--agents", "100", "-o", str(first))
    call_command("scenario", "grow", slug, "--agents", "100", "-o", str(second))
    assert first.read_bytes() == second.read_bytes()
    data, problems = read_scenario(first.read_text())
    assert problems == [] and len(data["personas"]) == 100 and connected(data)
    call_command("scenario", "import", str(first))
