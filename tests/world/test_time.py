"""Pure tests for world.time: the nine steps of a tick and the simulated clock."""
import pytest

from world.time import DEFAULT_REFLECTION_TICKS, busy_ticks, day_of, is_overnight, next_dawn, plan_tick, sim_clock

FLAGS = ("spouse_collision", "scheduled_reflection", "wind_down", "nightfall", "digest", "bulletin")


def fired(tick, **kw):
    plan = plan_tick(tick, **kw)
    return {f for f in FLAGS if getattr(plan, f)}


def test_plan_keeps_old_and_new_tick():
    plan = plan_tick(41)
    assert plan.tick == 41
    assert plan.new_tick == 42


@pytest.mark.parametrize(
    "tick, expected",
    [
        (0, set()),
        (1, {"spouse_collision"}),
        (2, set()),
        (13, set()),
        (14, {"scheduled_reflection"}),  # new tick 15
        (15, set()),  # new tick 16
        (29, {"scheduled_reflection", "digest"}),  # new tick 30
        (44, {"scheduled_reflection"}),  # new tick 45
        (59, {"scheduled_reflection", "digest"}),  # new tick 60
        (74, set()),  # new tick 75: no fifth reflection
        (9, {"digest"}),  # new tick 10
        (10, set()),
        (19, {"digest"}),
        (307, set()),
        (308, {"wind_down"}),  # new tick 309
        (309, {"digest"}),  # new tick 310
        (318, {"nightfall"}),  # new tick 319
        (319, {"digest"}),  # new tick 320
        (479, {"digest", "bulletin"}),  # new tick 480
        (480, set()),
        (481, set()),  # spouse collision is one-shot: not on day 2's tick 1
        (494, {"scheduled_reflection"}),  # new tick 495 == day 2's tick 15
        (509, {"scheduled_reflection", "digest"}),  # 510
        (788, {"wind_down"}),  # 789 == 480 + 309
        (798, {"nightfall"}),  # 799 == 480 + 319
        (959, {"digest", "bulletin"}),  # 960
        (1439, {"digest", "bulletin"}),  # 1440
    ],
)
def test_steps_fire_at(tick, expected):
    assert fired(tick) == expected


def test_reflections_every_day_at_new_tick_15_30_45_60():
    for day in range(4):
        for of_day in DEFAULT_REFLECTION_TICKS:
            new = day * 480 + of_day
            assert plan_tick(new - 1).scheduled_reflection, new
            assert not plan_tick(new).scheduled_reflection, new  # uses the new tick, not the old one


def test_reflection_ticks_are_configurable():
    assert plan_tick(19, reflection_ticks=(20,)).scheduled_reflection
    assert not plan_tick(14, reflection_ticks=(20,)).scheduled_reflection


def test_spouse_collision_only_at_tick_1():
    hits = [t for t in range(0, 3 * 480) if plan_tick(t).spouse_collision]
    assert hits == [1]


def test_wind_down_nightfall_bulletin_over_three_days():
    rng = range(0, 3 * 480)
    assert [plan_tick(t).new_tick for t in rng if plan_tick(t).wind_down] == [309, 789, 1269]
    assert [plan_tick(t).new_tick for t in rng if plan_tick(t).nightfall] == [319, 799, 1279]
    assert [plan_tick(t).new_tick for t in rng if plan_tick(t).bulletin] == [480, 960, 1440]


def test_digest_every_ten_new_ticks():
    hits = [plan_tick(t).new_tick for t in range(0, 100) if plan_tick(t).digest]
    assert hits == list(range(10, 101, 10))


@pytest.mark.parametrize(
    "tick, text",
    [
        (0, "Day 1, 06:00"),
        (1, "Day 1, 06:03"),
        (20, "Day 1, 07:00"),
        (319, "Day 1, 21:57"),
        (320, "Day 1, 22:00"),
        (360, "Day 1, 00:00"),  # 18 hours after dawn: midnight, still day 1 of the sim
        (479, "Day 1, 05:57"),
        (480, "Day 2, 06:00"),
        (480 + 171, "Day 2, 14:33"),
        (960, "Day 3, 06:00"),
    ],
)
def test_clock(tick, text):
    assert sim_clock(tick) == text


def test_day_of():
    assert [day_of(t) for t in (0, 479, 480, 959, 960)] == [1, 1, 2, 2, 3]


@pytest.mark.parametrize(
    "tick, overnight",
    [
        (0, False),
        (318, False),
        (319, False),  # nightfall tick itself: the last active tick
        (320, True),
        (400, True),
        (479, True),
        (480, False),  # dawn of day 2
        (799, False),
        (800, True),
        (959, True),
        (960, False),
    ],
)
def test_is_overnight_boundaries(tick, overnight):
    assert is_overnight(tick) is overnight


def test_overnight_is_160_ticks_a_day():
    assert sum(is_overnight(t) for t in range(480)) == 160
    assert sum(is_overnight(t) for t in range(480, 960)) == 160


@pytest.mark.parametrize("tick, dawn", [(0, 480), (1, 480), (319, 480), (479, 480), (480, 960), (900, 960)])
def test_next_dawn(tick, dawn):
    assert next_dawn(tick) == dawn
    assert dawn > tick and dawn % 480 == 0


@pytest.mark.parametrize(
    "minutes, ticks", [(1, 1), (2, 1), (3, 1), (4, 2), (6, 2), (7, 3), (60, 20), (479, 160), (480, 160)]
)
def test_busy_ticks(minutes, ticks):
    assert busy_ticks(minutes) == ticks
