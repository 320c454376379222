"""Pure tests for world.rules.ladder: rungs as data, gates as pure functions."""
import pytest

from world.rules.ladder import FEAR_PROP, NAME_PROP, RungSpec, action_allowed, rung_after_interact, rung_spec

ALL = ("interact", "move", "communicate", "sleep", "attack")

# The defaults of the 1912 scenario (SPEC section 4).
RUNGS = (
    RungSpec(0, "Panic", "You know nothing.", ALL, None),
    RungSpec(1, "Name", "You know your name.", ALL, NAME_PROP, 0),
    RungSpec(2, "Fear", "You know your fear.", ALL, FEAR_PROP, 480),
)

# A ladder whose lower rungs forbid some actions, to check the action gate.
STRICT = (
    RungSpec(0, "Panic", "", ("move", "sleep"), None),
    RungSpec(1, "Name", "", ("move", "sleep", "interact", "communicate"), NAME_PROP),
    RungSpec(2, "Fear", "", ALL, FEAR_PROP, 480),
)


def test_rung_spec_lookup():
    assert rung_spec(RUNGS, 1).name == "Name"
    assert rung_spec(RUNGS, 2).min_ticks_since_previous == 480
    with pytest.raises(KeyError):
        rung_spec(RUNGS, 3)


def test_rung_spec_independent_of_tuple_order():
    shuffled = (RUNGS[2], RUNGS[0], RUNGS[1])
    assert rung_spec(shuffled, 0).name == "Panic"
    assert rung_after_interact(shuffled, 0, 0, 5, NAME_PROP) == 1


@pytest.mark.parametrize("action", ALL)
def test_default_ladder_allows_everything_at_every_rung(action):
    for level in (0, 1, 2):
        assert action_allowed(RUNGS, level, action)


@pytest.mark.parametrize(
    "level, action, allowed",
    [
        (0, "move", True),
        (0, "sleep", True),
        (0, "interact", False),
        (0, "communicate", False),
        (0, "attack", False),
        (1, "interact", True),
        (1, "communicate", True),
        (1, "attack", False),
        (2, "attack", True),
    ],
)
def test_action_allowed_per_rung(level, action, allowed):
    assert action_allowed(STRICT, level, action) is allowed


def test_action_allowed_rejects_unknown_action():
    assert not action_allowed(RUNGS, 2, "teleport")


def test_own_name_prop_opens_rung_1():
    assert rung_after_interact(RUNGS, 0, 0, 0, NAME_PROP) == 1
    assert rung_after_interact(RUNGS, 0, 0, 7, NAME_PROP) == 1


def test_not_own_prop_opens_nothing():
    # role None: someone else's prop, or a prop with no ladder role
    assert rung_after_interact(RUNGS, 0, 0, 5, None) is None
    assert rung_after_interact(RUNGS, 1, 0, 5000, None) is None


def test_fear_prop_at_rung_0_opens_nothing():
    # Wrong role for the next rung; rungs are climbed in order, never skipped.
    assert rung_after_interact(RUNGS, 0, 0, 10_000, FEAR_PROP) is None


def test_name_prop_at_rung_1_opens_nothing():
    assert rung_after_interact(RUNGS, 1, 0, 10_000, NAME_PROP) is None


def test_unknown_role_opens_nothing():
    assert rung_after_interact(RUNGS, 0, 0, 10, "hat_prop") is None


@pytest.mark.parametrize(
    "reached, tick, expected",
    [
        (100, 100, None),
        (100, 579, None),  # 479 ticks since rung 1
        (100, 580, 2),  # exactly 480 ticks
        (100, 581, 2),
        (100, 5000, 2),
        (0, 479, None),
        (0, 480, 2),
    ],
)
def test_fear_prop_opens_rung_2_only_after_a_day(reached, tick, expected):
    assert rung_after_interact(RUNGS, 1, reached, tick, FEAR_PROP) == expected


def test_top_rung_has_nowhere_to_go():
    for role in (NAME_PROP, FEAR_PROP, None):
        assert rung_after_interact(RUNGS, 2, 0, 100_000, role) is None


def test_climbs_one_rung_at_a_time():
    level, reached = 0, 0
    level_after = rung_after_interact(RUNGS, level, reached, 10, NAME_PROP)
    assert level_after == 1
    level, reached = 1, 10
    assert rung_after_interact(RUNGS, level, reached, 489, FEAR_PROP) is None
    assert rung_after_interact(RUNGS, level, reached, 490, FEAR_PROP) == 2


def test_rung_1_wait_is_data():
    slow = (RUNGS[0], RungSpec(1, "Name", "", ALL, NAME_PROP, 30), RUNGS[2])
    assert rung_after_interact(slow, 0, 0, 29, NAME_PROP) is None
    assert rung_after_interact(slow, 0, 0, 30, NAME_PROP) == 1
