"""The society's networks, pure (NetworkX, no ORM): per run and day, who spoke to whom and who trusts
whom, and the measures a study reads from them.

- The speech graph: directed, speaker → listener, one edge per pair whose words the listener HEARD that
  day, weighted by how many utterances it heard (whisper, normal or shout alike).
- The trust graph: directed and signed, holder → judged, each edge the trust ledger's score (−1 to 1)
  as it stood at the end of the day; the structural measures read its positive ties (who trusts whom).

Every agent of the run is a node, so someone nobody heard is an isolate. The measures:
density, reciprocity, transitivity, the share of agents in the largest weakly connected component,
Freeman's degree centralisation, and the modularity of a Louvain partition (seeded, so it repeats).
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    import networkx as nx

# NetworkX is imported in the functions that build or measure a graph: its ~25 MB load with a study's
# measures or a page that draws a network, not in every process whose startup imports this module
# (through the API's and pages' URLs: run_voyage, the workers).

LOUVAIN_SEED = 1912  # the partition is a heuristic's; a fixed seed makes it the same every time
NETWORK_KEYS = ("density", "reciprocity", "transitivity", "largest_component", "centralisation", "modularity",
                "communities")


def speech_graph(agents: Iterable[str], heard: Counter | dict) -> nx.DiGraph:
    """`heard`: {(speaker, listener): utterances heard}."""
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(agents)
    for (speaker, listener), n in heard.items():
        if speaker != listener and n > 0:
            g.add_edge(speaker, listener, weight=n)
    return g


def trust_graph(agents: Iterable[str], scores: dict[tuple[str, str], float]) -> nx.DiGraph:
    """`scores`: {(holder, judged): score} as the ledger stood; every judgement is an edge, `sign` ±1
    (0 for indifference)."""
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(agents)
    for (holder, judged), score in scores.items():
        if holder != judged:
            g.add_edge(holder, judged, score=score, sign=(score > 0) - (score < 0))
    return g


def positive_ties(g: nx.DiGraph) -> nx.DiGraph:
    """The same people, only the edges of trust (score above 0), weighted by the score."""
    import networkx as nx

    out = nx.DiGraph()
    out.add_nodes_from(g)
    out.add_edges_from((a, b, {"weight": d["score"]}) for a, b, d in g.edges(data=True) if d["score"] > 0)
    return out


def undirected(g: nx.DiGraph) -> nx.Graph:
    """Both directions of a pair folded into one tie whose weight is their sum."""
    import networkx as nx

    u = nx.Graph()
    u.add_nodes_from(g)
    for a, b, d in g.edges(data=True):
        w = d.get("weight", 1)
        if u.has_edge(a, b):
            u[a][b]["weight"] += w
        else:
            u.add_edge(a, b, weight=w)
    return u


def degree_centralisation(u: nx.Graph) -> float | None:
    """Freeman's: Σ (highest degree − each degree) / ((n − 1)(n − 2)), the most a graph of n nodes can
    have (a star): 1 for a star, 0 when everyone has as many ties."""
    n = u.number_of_nodes()
    if n < 3:
        return None
    degrees = [d for _, d in u.degree()]
    top = max(degrees)
    return sum(top - d for d in degrees) / ((n - 1) * (n - 2))


def communities(u: nx.Graph, seed: int = LOUVAIN_SEED) -> list[set]:
    """Louvain communities of the undirected weighted graph (isolates each alone), largest first, ties
    broken by their smallest member so the order repeats."""
    import networkx as nx

    if u.number_of_edges() == 0:
        return [{n} for n in sorted(u)]
    found = nx.community.louvain_communities(u, weight="weight", seed=seed)
    return sorted(found, key=lambda c: (-len(c), min(map(str, c))))


def network_measures(g: nx.DiGraph, seed: int = LOUVAIN_SEED) -> dict:
    """The NETWORK_KEYS of a directed graph; None where a measure has nothing to read (no edges, fewer
    than three people)."""
    import networkx as nx

    n, edges = g.number_of_nodes(), g.number_of_edges()
    u = undirected(g)
    out = dict.fromkeys(NETWORK_KEYS)
    if n == 0:
        return out
    out["density"] = _r(nx.density(g)) if n > 1 else None
    out["largest_component"] = _r(max(len(c) for c in nx.weakly_connected_components(g)) / n)
    out["centralisation"] = _r(degree_centralisation(u))
    if edges:
        out["reciprocity"] = _r(nx.reciprocity(g))
        out["transitivity"] = _r(nx.transitivity(u))
        parts = communities(u, seed)
        out["modularity"] = _r(nx.community.modularity(u, parts, weight="weight"))
        out["communities"] = sum(1 for c in parts if len(c) > 1)
    return out


def strongest_ties(g: nx.DiGraph, agent: str, k: int = 5) -> list[tuple[str, int, int]]:
    """The agent's k heaviest ties in the speech graph: (other, utterances it heard from them, utterances
    they heard from it), heaviest first (both directions added), then by name."""
    if agent not in g:
        return []
    others = set(g.successors(agent)) | set(g.predecessors(agent))
    ties = [(o, g[o][agent]["weight"] if g.has_edge(o, agent) else 0,
             g[agent][o]["weight"] if g.has_edge(agent, o) else 0) for o in others]
    return sorted(ties, key=lambda t: (-(t[1] + t[2]), t[0]))[:k]


def _r(value, digits=4):
    return None if value is None else round(float(value), digits)
