"""The network measures (voyage/studies/networks.py) on small hand-built graphs whose values are known
or worked out by hand in the comments."""
from collections import Counter

import networkx as nx
import pytest

from voyage.studies.networks import (NETWORK_KEYS, communities, degree_centralisation, network_measures,
                                     positive_ties, speech_graph, strongest_ties, trust_graph, undirected)


def both_ways(pairs):
    return Counter({**{(a, b): 1 for a, b in pairs}, **{(b, a): 1 for a, b in pairs}})


def test_a_star_is_fully_centralised_and_has_no_triangles():
    # the centre speaks to four others, nobody answers: 4 of 20 possible edges
    g = speech_graph("cwxyz", {("c", o): 3 for o in "wxyz"})
    got = network_measures(g)
    assert tuple(got) == NETWORK_KEYS
    assert (got["density"], got["reciprocity"], got["transitivity"]) == (0.2, 0.0, 0.0)
    assert (got["largest_component"], got["centralisation"]) == (1.0, 1.0)


def test_two_separate_triangles_split_into_two_communities():
    # two cliques of three, each tie both ways: 12 of 30 edges; Q = 1 - 2 x (1/2)^2 = 0.5 for the
    # partition into the two cliques (each holds half of all ties, and every tie is inside one)
    g = speech_graph("abcdef", both_ways([("a", "b"), ("b", "c"), ("a", "c"), ("d", "e"), ("e", "f"), ("d", "f")]))
    got = network_measures(g)
    assert (got["density"], got["reciprocity"], got["transitivity"]) == (0.4, 1.0, 1.0)
    assert (got["largest_component"], got["centralisation"]) == (0.5, 0.0)
    assert (got["modularity"], got["communities"]) == (0.5, 2)
    assert communities(undirected(g)) == [{"a", "b", "c"}, {"d", "e", "f"}]


def modularity_by_hand(graph, parts) -> float:
    """Newman's Q = sum over communities of (ties inside / m) - (degrees inside / 2m)^2."""
    m = graph.number_of_edges()
    q = 0.0
    for part in parts:
        inside = sum(1 for a, b in graph.edges if a in part and b in part)
        degrees = sum(d for n, d in graph.degree if n in part)
        q += inside / m - (degrees / (2 * m)) ** 2
    return q


def test_zacharys_karate_club():
    # 34 members, 78 ties; transitivity 0.2557 (the published value); the highest degree is 17 and
    # the degrees sum to 156, so centralisation = (34 x 17 - 156) / (33 x 32) = 422 / 1056
    karate = nx.karate_club_graph()
    g = speech_graph(karate.nodes, both_ways(karate.edges))
    got = network_measures(g)
    assert got["density"] == round(156 / (34 * 33), 4) and got["reciprocity"] == 1.0
    assert got["transitivity"] == 0.2557
    assert got["centralisation"] == round(422 / 1056, 4)
    assert got["largest_component"] == 1.0
    # the two factions' split, by hand; Louvain's partition (more than two communities) scores higher
    factions = [{n for n in karate if karate.nodes[n]["club"] == c} for c in ("Mr. Hi", "Officer")]
    assert modularity_by_hand(karate, factions) == pytest.approx(0.3582, abs=1e-4)
    found = communities(undirected(g))
    assert got["modularity"] == round(modularity_by_hand(karate, found), 4)
    assert got["modularity"] > 0.3582 and got["communities"] == len(found) >= 3
    assert network_measures(g) == got  # seeded: the same partition every time


def test_reciprocity_density_and_centralisation_by_hand():
    # a<->b and a->c: 3 of 6 edges; two of the three are returned; a path b-a-c is a star of three
    g = speech_graph("abc", {("a", "b"): 1, ("b", "a"): 2, ("a", "c"): 1, ("c", "c"): 5})  # talking to oneself: no tie
    got = network_measures(g)
    assert (got["density"], got["reciprocity"], got["centralisation"], got["transitivity"]) == (0.5, 0.6667, 1.0, 0.0)
    # a path of four: degrees 1, 2, 2, 1, so (1 + 0 + 0 + 1) / (3 x 2)
    assert degree_centralisation(nx.path_graph(4)) == pytest.approx(1 / 3)
    assert degree_centralisation(nx.path_graph(2)) is None


def test_nobody_spoke_leaves_nothing_to_measure_but_isolates():
    got = network_measures(speech_graph("abcd", {}))
    assert (got["density"], got["largest_component"], got["centralisation"]) == (0.0, 0.25, 0.0)
    assert (got["reciprocity"], got["transitivity"], got["modularity"], got["communities"]) == (None,) * 4
    assert network_measures(speech_graph([], {})) == dict.fromkeys(NETWORK_KEYS)


def test_the_trust_graph_is_signed_and_its_positive_ties_measured():
    g = trust_graph("abc", {("a", "b"): 0.5, ("b", "a"): -0.5, ("a", "c"): 0.0})
    assert [g[a][b]["sign"] for a, b in (("a", "b"), ("b", "a"), ("a", "c"))] == [1, -1, 0]
    pos = positive_ties(g)
    assert list(pos.edges(data="weight")) == [("a", "b", 0.5)]
    got = network_measures(pos)
    # one tie of six; a and b together (2 of 3); degrees 1, 1, 0: (0 + 0 + 1) / (2 x 1)
    assert (got["density"], got["reciprocity"], got["largest_component"], got["centralisation"]) == (
        0.1667, 0.0, 0.6667, 0.5)


def test_strongest_ties_add_both_directions():
    g = speech_graph("abcd", {("b", "a"): 4, ("a", "b"): 1, ("c", "a"): 2, ("a", "d"): 3, ("c", "d"): 9})
    assert strongest_ties(g, "a") == [("b", 4, 1), ("d", 0, 3), ("c", 2, 0)]
    assert strongest_ties(g, "a", k=1) == [("b", 4, 1)] and strongest_ties(g, "nobody") == []
