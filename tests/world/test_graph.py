"""Pure tests for world.rules.graph: deterministic shortest paths over the ship's rooms."""
import pytest

from world.rules.graph import RoomGraph


def line():  # 1 - 2 - 3 - 4
    return RoomGraph([1, 2, 3, 4], [(1, 2), (2, 3), (3, 4)])


def test_neighbours_are_undirected_and_sorted():
    g = RoomGraph([1, 2, 3, 4], [(1, 4), (1, 2), (3, 1)])
    assert g.neighbours == {1: [2, 3, 4], 2: [1], 3: [1], 4: [1]}


def test_path_along_a_line_both_ways():
    g = line()
    assert g.path(1, 4) == [1, 2, 3, 4]
    assert g.path(4, 1) == [4, 3, 2, 1]
    assert g.next_hop(1, 4) == 2
    assert g.next_hop(4, 1) == 3
    assert g.next_hop(3, 4) == 4


def test_same_room():
    g = line()
    assert g.path(2, 2) == [2]
    assert g.next_hop(2, 2) is None


def test_shortest_path_beats_a_longer_one():
    # 1-2-3-4-5 ring closed by a shortcut 1-5
    g = RoomGraph([1, 2, 3, 4, 5], [(1, 2), (2, 3), (3, 4), (4, 5), (1, 5)])
    assert g.path(1, 4) == [1, 5, 4]
    assert g.next_hop(1, 4) == 5
    assert g.next_hop(1, 3) == 2


def test_ties_broken_by_lowest_id():
    # diamond: 1 -> {2, 3} -> 4, given in an order that favours 3
    g = RoomGraph([4, 3, 2, 1], [(3, 4), (1, 3), (2, 4), (1, 2)])
    assert g.next_hop(1, 4) == 2
    assert g.path(1, 4) == [1, 2, 4]
    assert g.next_hop(4, 1) == 2


def test_deep_tie_still_takes_lowest_first_hop():
    # two equal-length routes 0->9: via 5,7 and via 3,8; the lowest first hop (3) wins
    g = RoomGraph([0, 3, 5, 7, 8, 9], [(0, 5), (5, 7), (7, 9), (0, 3), (3, 8), (8, 9)])
    assert g.next_hop(0, 9) == 3
    assert len(g.path(0, 9)) == 4


def test_disconnected():
    g = RoomGraph([1, 2, 3, 4], [(1, 2), (3, 4)])
    assert g.path(1, 3) is None
    assert g.next_hop(1, 3) is None
    assert g.next_hop(1, 2) == 2
    assert not g.is_connected()


def test_isolated_room_breaks_connectivity():
    assert not RoomGraph([1, 2, 3], [(1, 2)]).is_connected()


@pytest.mark.parametrize(
    "rooms, exits",
    [
        ([], []),
        ([7], []),
        ([1, 2], [(1, 2)]),
        ([1, 2, 3, 4], [(1, 2), (2, 3), (3, 4)]),
        ([1, 2, 3, 4], [(4, 1), (4, 2), (4, 3)]),
    ],
)
def test_connected(rooms, exits):
    assert RoomGraph(rooms, exits).is_connected()


def test_next_hop_is_cached_and_stable():
    g = line()
    first = g.next_hop(1, 4)
    assert g._next_hop[(1, 4)] == first
    assert g.next_hop(1, 4) == first


def test_path_is_a_walk_along_exits():
    exits = [(1, 2), (2, 3), (3, 6), (1, 4), (4, 5), (5, 6), (6, 7)]
    g = RoomGraph(range(1, 8), exits)
    edges = {frozenset(e) for e in exits}
    for a in range(1, 8):
        for b in range(1, 8):
            p = g.path(a, b)
            assert p[0] == a and p[-1] == b
            assert all(frozenset(pair) in edges for pair in zip(p, p[1:]))
            assert len(p) == len(set(p))
    assert len(g.path(1, 7)) == 5  # 1-2-3-6-7 (ties with 1-4-5-6-7, lower first hop wins)
    assert g.path(1, 7) == [1, 2, 3, 6, 7]
