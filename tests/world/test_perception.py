"""Pure tests for world.rules.perception: what each rung sees, and how words name things."""
import pytest

from world.rules.actions import Action, ActionFail
from world.rules.ladder import FEAR, HISTORY, ITEM_NAMES, OWN_NAME, PEOPLE_NAMES, SECRET, SETTING, TRUST_LABELS
from world.rules.perception import Person, Place, Thing, perceive, render_situation, resolve_target

SALON = Place(10, "Grand Salon")
DECK = Place(11, "Promenade Deck")
CABIN = Place(12, "Cabin C-62")
ROOMS = {"Grand Salon": 10, "Promenade Deck": 11, "Cabin C-62": 12}

ADA = Person(2, "Ada Holloway", label="a friend")
BERT = Person(3, "Bert Crane", asleep=True)
CORA = Person(4, "Cora Vance", label="distrusted")
WATCH = Thing(100, "Pocket watch")
LETTER = Thing(101, "Sealed letter")


# What each rung of the 1912 ladder knows (the scenario's rung rows say so; see world.rules.ladder).
KNOWS = {0: frozenset(), 1: frozenset({OWN_NAME, SETTING, ITEM_NAMES, PEOPLE_NAMES, TRUST_LABELS})}
KNOWS[2] = KNOWS[1] | {HISTORY, FEAR, SECRET}


def see(rung, people=(ADA, BERT, CORA), things=(WATCH, LETTER)):
    return perceive(
        agent_id=1,
        rung=rung,
        knows=KNOWS[rung],
        room=SALON,
        room_description="Chandeliers sway.",
        scale="vast",
        ambient_noise="high",
        people=list(people),
        things=list(things),
        exits=[DECK, CABIN],
        rooms_by_name=ROOMS,
    )


def act(action_type, target, volume="normal", dialogue=""):
    return Action(action_type, target, volume, dialogue, 3, "")


# --- rendering per rung -----------------------------------------------------------------------
def test_rung_0_people_are_unknown_and_numbered():
    s = see(0)
    assert [label for label, _, _ in s.people] == ["someone (unknown 1)", "someone (unknown 2)", "someone (unknown 3)"]
    assert [aid for _, _, aid in s.people] == [2, 3, 4]
    assert [shown for _, shown, _ in s.people] == ["someone (unknown 1)", "someone (unknown 2), asleep", "someone (unknown 3)"]


def test_rung_0_items_are_indistinct():
    s = see(0)
    assert s.things == (("indistinct object 1", 100), ("indistinct object 2", 101))


def test_rung_0_render_leaks_no_names_or_labels():
    text = render_situation(see(0))
    for secret in ("Ada", "Bert", "Cora", "Holloway", "Pocket watch", "Sealed letter", "friend", "distrusted"):
        assert secret not in text
    assert "someone (unknown 1)" in text
    assert "2 indistinct objects: indistinct object 1, indistinct object 2." in text
    assert "You are in the Grand Salon (vast, noisy). Chandeliers sway." in text
    assert "Ways out: Promenade Deck, Cabin C-62." in text


@pytest.mark.parametrize("rung", [1, 2])
def test_rung_1_and_up_show_names_with_trust_labels(rung):
    s = see(rung)
    assert [label for label, _, _ in s.people] == ["Ada Holloway", "Bert Crane", "Cora Vance"]
    assert [shown for _, shown, _ in s.people] == ["Ada Holloway (a friend)", "Bert Crane, asleep", "Cora Vance (distrusted)"]
    assert s.things == (("Pocket watch", 100), ("Sealed letter", 101))
    text = render_situation(s)
    assert "People here: Ada Holloway (a friend); Bert Crane, asleep; Cora Vance (distrusted)." in text
    assert "Items here: Pocket watch, Sealed letter." in text
    assert "indistinct" not in text
    assert "unknown" not in text


def test_empty_room_render():
    text = render_situation(see(1, people=(), things=()))
    assert "Nobody else is here." in text
    assert "No objects you could examine." in text


def test_situation_keeps_rung_and_room():
    s = see(2)
    assert (s.agent_id, s.rung, s.room, s.scale, s.ambient_noise) == (1, 2, SALON, "vast", "high")
    assert s.exits == (DECK, CABIN)


# --- target resolution ----------------------------------------------------------------------
@pytest.mark.parametrize("rung", [0, 1])
def test_move_to_a_room_by_name_case_insensitive(rung):
    assert resolve_target(see(rung), act("move", "promenade DECK")) == ("room", 11)


@pytest.mark.parametrize("rung", [0, 1])
def test_move_to_current_room_fails(rung):
    r = resolve_target(see(rung), act("move", "Grand Salon"))
    assert isinstance(r, ActionFail)
    assert "already in the Grand Salon" in r.reason


def test_unknown_target_fails():
    r = resolve_target(see(1), act("interact", "Crystal skull"))
    assert isinstance(r, ActionFail)
    assert "unknown target 'Crystal skull'" in r.reason


def test_rung_0_shown_labels_resolve():
    s = see(0)
    assert resolve_target(s, act("interact", "someone (unknown 3)")) == ("person", 4)
    assert resolve_target(s, act("interact", "Indistinct Object 2")) == ("prop", 101)


def test_display_names_resolve_at_rung_0_too():
    # An agent that hears a name spoken may use it even before it knows its own.
    s = see(0)
    assert resolve_target(s, act("communicate", "Ada Holloway")) == ("person", 2)
    assert resolve_target(s, act("attack", "cora vance")) == ("person", 4)


def test_item_names_do_not_resolve_at_rung_0():
    r = resolve_target(see(0), act("interact", "Pocket watch"))
    assert isinstance(r, ActionFail)


def test_item_names_resolve_at_rung_1():
    assert resolve_target(see(1), act("interact", "pocket watch")) == ("prop", 100)
    assert resolve_target(see(1), act("interact", "Bert Crane")) == ("person", 3)


@pytest.mark.parametrize(
    "action_type, target",
    [
        ("move", "Ada Holloway"),  # move needs a room
        ("move", "Pocket watch"),
        ("attack", "Pocket watch"),  # attack needs a person
        ("attack", "Promenade Deck"),
        ("communicate", "Sealed letter"),  # communicate needs a person
        ("interact", "Promenade Deck"),  # interact needs a prop or person
    ],
)
def test_wrong_kind_of_target_fails(action_type, target):
    r = resolve_target(see(1), act(action_type, target))
    assert isinstance(r, ActionFail)
    assert "unknown target" in r.reason


def test_person_not_in_room_fails():
    r = resolve_target(see(1, people=(ADA,)), act("communicate", "Cora Vance"))
    assert isinstance(r, ActionFail)


@pytest.mark.parametrize("action_type", ["communicate", "sleep"])
def test_no_target_is_none(action_type):
    assert resolve_target(see(1), act(action_type, None)) is None


def test_sleep_ignores_any_target():
    assert resolve_target(see(1), act("sleep", "Ada Holloway")) is None
