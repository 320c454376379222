"""Ranking arms from pairwise verdicts, as Generative Agents ranked their architectures: a
Bradley–Terry model (`choix.ilsr_pairwise`), each arm's strength with a bootstrap 95 % interval over
the clusters the verdicts came from (an agent of a seed), seeded. Pure."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

BOOTSTRAP = 500
REGULARISATION = 0.01  # choix's alpha: keeps strengths finite when one arm wins every comparison


@dataclass(frozen=True)
class Verdict:
    winner: str
    loser: str
    cluster: str  # what resampling keeps together: an agent of a seed


@dataclass(frozen=True)
class Ranked:
    arm: str
    score: float  # Bradley–Terry strength (log scale), centred on the arms' mean
    ci_low: float
    ci_high: float
    rank: int
    comparisons: int


def strengths(arms: list[str], verdicts: list[Verdict]) -> np.ndarray:
    import choix  # lazy, as numpy: choix loads SciPy (~75 MB), in every process whose startup imports this module
    import numpy as np

    index = {a: i for i, a in enumerate(arms)}
    data = [(index[v.winner], index[v.loser]) for v in verdicts]
    if not data:
        return np.zeros(len(arms))
    s = np.asarray(choix.ilsr_pairwise(len(arms), data, alpha=REGULARISATION))
    return s - s.mean()


def rank(arms: list[str], verdicts: list[Verdict], seed: int = 0, draws: int = BOOTSTRAP) -> list[Ranked]:
    """The arms, best first, with their bootstrap intervals (percentiles over `draws` resamples of the
    clusters, with replacement)."""
    import numpy as np  # lazy: see `strengths`

    point = strengths(arms, verdicts)
    clusters: dict[str, list[Verdict]] = {}
    for v in verdicts:
        clusters.setdefault(v.cluster, []).append(v)
    keys = sorted(clusters)
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(draws if keys else 0):
        picked = rng.integers(0, len(keys), len(keys))
        samples.append(strengths(arms, [v for i in picked for v in clusters[keys[i]]]))
    low, high = (np.percentile(samples, [2.5, 97.5], axis=0) if samples else (point, point))
    counts = {a: sum(1 for v in verdicts if a in (v.winner, v.loser)) for a in arms}
    order = sorted(range(len(arms)), key=lambda i: (-point[i], arms[i]))
    return [Ranked(arms[i], round(float(point[i]), 4), round(float(low[i]), 4), round(float(high[i]), 4), r + 1,
                   counts[arms[i]]) for r, i in enumerate(order)]
