"""Pure tests for world.rules.names_in_text: the dream's room-name scan, which must find exactly what
`name in text` finds, for one name or thousands."""
from hypothesis import given, strategies as st

from world.rules.names_in_text import NamesInText


def naive(names, text):
    return {n for n in names if n in text}


def test_nested_and_overlapping_names_are_all_found():
    names = ["Hall", "Entrance Hall", "Entrance", "Salon (1)", "Salon (12)"]
    text = "You walk from the Entrance Hall into the Salon (12)."
    assert NamesInText(names).found(text) == {"Hall", "Entrance Hall", "Entrance", "Salon (12)"}


def test_a_copy_suffix_is_not_found_inside_a_longer_one():
    finder = NamesInText([f"Kitchen ({c})" for c in range(1, 300)])
    assert finder.found("the Kitchen (12) is warm; the Kitchen (3) is not") == {"Kitchen (12)", "Kitchen (3)"}


def test_no_names_and_empty_names():
    assert NamesInText([]).found("anything") == set()
    assert NamesInText(["", "Bridge"]).found("on deck") == {""}


@given(st.lists(st.text(alphabet="ab (1)", min_size=1, max_size=5), max_size=12),
       st.text(alphabet="ab (1)", max_size=40))
def test_it_finds_what_in_finds(names, text):
    assert NamesInText(names).found(text) == naive(names, text)


@given(st.lists(st.text(alphabet="ab (1)", min_size=1, max_size=5), max_size=12, unique=True),
       st.text(alphabet="ab (1)", max_size=40))
def test_the_action_schemas_rooms_are_the_same_found_either_way(names, text):
    # The engine passes rooms_named its world's NamesInText (O(text), not O(rooms)): same rooms, same order.
    from world.rules.action_schema import rooms_named
    assert rooms_named(text, NamesInText(names)) == rooms_named(text, names) == \
        tuple(n for n in names if n in text)
