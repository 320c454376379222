"""Bradley–Terry on hand-made comparisons recovers a known order, with intervals that separate arms
far apart and overlap for arms alike."""
from __future__ import annotations

import random

from voyage.judging.ranking import Verdict, rank


def comparisons(truth: dict[str, float], n: int, seed: int) -> list[Verdict]:
    """n comparisons per pair of arms per cluster, won with the Bradley–Terry probability of `truth`."""
    rng = random.Random(seed)
    arms = list(truth)
    out = []
    for cluster in range(12):
        for i, a in enumerate(arms):
            for b in arms[i + 1:]:
                for _ in range(n):
                    p = truth[a] / (truth[a] + truth[b])
                    out.append(Verdict(a, b, f"c{cluster}") if rng.random() < p else Verdict(b, a, f"c{cluster}"))
    return out


def test_bradley_terry_recovers_a_known_order():
    truth = {"hot_window_only": 1.0, "full": 6.0, "no_reflection": 2.5}
    ranked = rank(list(truth), comparisons(truth, 4, seed=1), seed=3, draws=200)
    assert [r.arm for r in ranked] == ["full", "no_reflection", "hot_window_only"]
    assert [r.rank for r in ranked] == [1, 2, 3]
    assert all(r.ci_low <= r.score <= r.ci_high for r in ranked)
    assert ranked[0].ci_low > ranked[2].ci_high  # far apart: the intervals do not meet
    assert abs(sum(r.score for r in ranked)) < 1e-6  # centred


def test_a_sweep_is_ranked_first_and_equal_arms_overlap():
    sweep = [Verdict("a", "b", f"c{i}") for i in range(10)]
    top, bottom = rank(["a", "b"], sweep, draws=50)
    assert (top.arm, bottom.arm) == ("a", "b") and top.score > bottom.score
    even = comparisons({"x": 1.0, "y": 1.0}, 4, seed=2)
    x, y = rank(["x", "y"], even, draws=200)
    assert x.ci_low < y.ci_high and y.ci_low < x.ci_high


def test_the_same_seed_gives_the_same_intervals():
    data = comparisons({"p": 1.0, "q": 3.0}, 2, seed=5)
    assert rank(["p", "q"], data, seed=9, draws=100) == rank(["p", "q"], data, seed=9, draws=100)
