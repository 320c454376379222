"""The dashboards' pure parts: the ship map's layout, usage figures and the runs list's buttons."""
from hypothesis import given
from hypothesis import strategies as st

from voyage.web.costs import active_ticks, percentile, projected_rest, usage_tables
from voyage.web.feed import describe_event
from voyage.web.runs import buttons_for
from voyage.web.shipmap import MARKER_R, MARKER_STEP, MARKER_TOP, ROOM_H, ROOM_W, lay_out, marker_spots

ROOM_HOLDS = (ROOM_W - 2 * MARKER_R) // MARKER_STEP * ((ROOM_H - MARKER_TOP) // MARKER_STEP)

ROOMS = [("deck", "Boat Deck Promenade", "Boat Deck", False), ("bridge", "Bridge", "Boat Deck", False),
         ("stairs", "Grand Staircase", "A Deck", False), ("cabin", "Cabin A-1", "A Deck", True),
         ("hold", "Cargo Hold", "Orlop", False)]


def test_decks_are_rows_in_the_scenarios_order_and_rooms_do_not_overlap():
    layout = lay_out(ROOMS, [("deck", "bridge"), ("deck", "stairs"), ("stairs", "hold")])
    assert [deck for deck, _ in layout.decks] == ["Boat Deck", "A Deck", "Orlop"]
    ys = [y for _, y in layout.decks]
    assert ys == sorted(ys) and len(set(ys)) == 3
    boxes = list(layout.rooms.values())
    for a in boxes:
        assert 0 <= a.x and a.x + a.w <= layout.width and a.y + a.h <= layout.height
        for b in boxes:
            if a is not b:
                assert a.x + a.w <= b.x or b.x + b.w <= a.x or a.y + a.h <= b.y or b.y + b.h <= a.y
    same_deck, across, _ = layout.exits
    assert same_deck.startswith("M") and " Q" in same_deck  # an arc over the row
    assert across == f"M{layout.rooms['deck'].x + ROOM_W // 2},{layout.rooms['deck'].y + ROOM_H} " \
                     f"L{layout.rooms['stairs'].x + ROOM_W // 2},{layout.rooms['stairs'].y}"


@given(st.lists(st.sampled_from([r[0] for r in ROOMS]), min_size=1, max_size=60))
def test_every_marker_sits_inside_its_room_and_no_two_share_a_spot_unless_the_room_is_full(rooms):
    layout = lay_out(ROOMS, [])
    where = {f"agent{n:02d}": room for n, room in enumerate(rooms)}
    spots = marker_spots(layout, where)
    assert set(spots) == set(where)
    for agent, (x, y) in spots.items():
        box = layout.rooms[where[agent]]
        assert box.x < x < box.x + box.w and box.y < y < box.y + box.h
    for room in set(rooms):
        here = [spots[a] for a, r in where.items() if r == room]
        if len(here) <= ROOM_HOLDS:
            assert len(set(here)) == len(here)


def test_the_whole_cast_fits_in_one_room():
    assert ROOM_HOLDS >= 33


def test_percentiles_are_nearest_rank():
    values = sorted(float(v) for v in range(1, 101))
    assert percentile(values, 50) == 50 and percentile(values, 95) == 95 and percentile([], 95) == 0
    assert percentile([7.0], 50) == 7.0


def test_the_projected_cost_counts_only_the_daytime_ticks_still_to_come():
    assert active_ticks(480) == 320 and active_ticks(500) == 340 and active_ticks(900) == 640
    assert projected_rest(0, 0, 480) is None
    assert projected_rest(3.2, 320, 480) == 0  # the rest of day 1 is night: no action calls
    assert projected_rest(3.2, 320, 960) == 3.2  # one more day at the same rate
    assert projected_rest(1.0, 960, 960) == 0


def test_usage_adds_up_by_purpose_and_by_agent_with_latency_percentiles():
    groups = [("action", "Ann", 1, 100, 0.01, 0, 0), ("action", "Bob", 1, 50, 0.02, 1, 2),
              ("trust", "Ann", 1, 10, 0.0, 0, 1), ("bulletin", None, 1, 5, 0.0, 0, 0)]
    latencies = [("action", "Ann", 10.0), ("action", "Bob", 30.0), ("trust", "Ann", 500.0), ("bulletin", None, 7.0)]
    usage = usage_tables(groups, latencies)
    assert usage["by_purpose"]["action"] == {"calls": 2, "tokens": 150, "cost": 0.03, "failures": 1, "retries": 2,
                                             "p50_ms": 10.0, "p95_ms": 30.0, "cost_shown": "0.0300",
                                             "p50_shown": "10", "p95_shown": "30"}
    assert usage["by_agent"]["Ann"]["calls"] == 2 and usage["by_agent"]["Ann"]["p95_ms"] == 500.0
    assert usage["by_agent"]["(the ship)"]["tokens"] == 5 and usage["by_purpose"]["trust"]["retries"] == 1
    assert usage["total"]["calls"] == 4 and usage["total"]["p50_ms"] == 10.0 and usage["total"]["p95_ms"] == 500.0


def test_the_feed_line_of_a_speech_says_who_how_loud_and_to_whom():
    line = describe_event("communicate", "<b>hello</b>", {"volume": "whisper", "target": "bob"}, "Ann", {"bob": "Bob"})
    assert line == 'Ann (whisper to Bob): "<b>hello</b>"'  # raw: the page escapes it
    assert describe_event("sleep", "", {"until": 20}, "Ann") == "Ann falls asleep until Day 1, 07:00"


def test_buttons_follow_the_runs_state():
    assert buttons_for("queued", 0, 10) == ["start", "pause", "stop"]
    assert buttons_for("running", 3, 10) == ["pause", "stop"]
    assert buttons_for("paused", 3, 10) == ["resume", "stop"] == buttons_for("failed", 3, 10)
    assert buttons_for("finished", 10, 10) == [] and buttons_for("finished", 3, 10) == ["start"]
