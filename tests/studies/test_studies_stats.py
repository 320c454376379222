"""The statistics between arms (voyage/studies/stats.py) against values computed another way: effect
sizes by hand, the permutation test by enumerating every split ourselves, the bootstrap interval
against the normal-theory interval on large samples; and the p-value's spread under a null."""
import itertools
import math

import numpy as np
import pytest

from voyage.studies.stats import (KEYS, RESAMPLES, cliff_delta, cohen_d, compare, permutation_p, seed_for)


def test_cohens_d_by_hand():
    # means 4 and 2; sample variances 4 and 1; pooled (2·4 + 2·1) / 4 = 2.5
    assert cohen_d([2, 4, 6], [1, 2, 3]) == pytest.approx(2 / math.sqrt(2.5))
    assert cohen_d([5, 5], [5, 5]) is None  # no spread at all: no standardised difference
    assert cohen_d([1], [2, 3]) is None


def test_cliffs_delta_by_hand():
    # 3>1 3>2 4>1 4>2 5>1 5>2 5>4 (7 greater), 3<4 (1 less), 4=4: (7 - 1) / 9
    assert cliff_delta([3, 4, 5], [1, 2, 4]) == pytest.approx(6 / 9)
    assert cliff_delta([1, 2, 3], [2, 2]) == 0.0
    assert cliff_delta([9, 8], [1, 2, 3]) == 1.0 and cliff_delta([1], [9]) == -1.0


def exact_two_sided(x, y) -> float:
    """Every split of the pooled runs into groups of len(x) and len(y), counted by hand: the share
    whose difference in means is at least / at most the observed one; two-sided = 2 × the smaller."""
    pooled, n = list(x) + list(y), len(x)
    observed = np.mean(x) - np.mean(y)
    diffs = []
    for chosen in itertools.combinations(range(len(pooled)), n):
        a = [pooled[i] for i in chosen]
        b = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        diffs.append(np.mean(a) - np.mean(b))
    diffs = np.array(diffs)
    eps = 1e-12
    greater = np.mean(diffs >= observed - eps)
    less = np.mean(diffs <= observed + eps)
    return min(1.0, 2 * min(greater, less))


@pytest.mark.parametrize("x, y", [
    ([1, 2, 7], [3, 4, 5, 9]),
    ([10.5, 11, 12, 14], [9, 9.5, 10, 10.2]),
    ([0, 0, 1], [1, 1, 1]),  # ties
    ([3, 8, 1, 6, 2], [7, 9, 4, 10, 12]),
])
def test_the_permutation_test_is_the_exact_enumeration_on_small_samples(x, y):
    assert permutation_p(x, y, seed=1) == pytest.approx(exact_two_sided(x, y))


def test_the_bootstrap_interval_matches_the_normal_theory_interval_on_large_samples():
    rng = np.random.default_rng(7)
    x, y = rng.normal(10, 2, 400), rng.normal(9, 3, 400)
    got = compare("m", 1, "b", x, "a", y, seed=3)
    se = math.sqrt(np.var(x, ddof=1) / len(x) + np.var(y, ddof=1) / len(y))
    diff = np.mean(x) - np.mean(y)
    assert got.diff == pytest.approx(diff)
    assert got.ci_low == pytest.approx(diff - 1.96 * se, abs=0.05)
    assert got.ci_high == pytest.approx(diff + 1.96 * se, abs=0.05)
    assert got.p_value < 0.001 and got.effect_size == pytest.approx(cohen_d(x, y))


def test_a_comparison_carries_its_numbers_and_repeats_with_its_seed():
    a, b = [5.13, 6.52, 7.08, 6.01, 8.26], [4.07, 5.11, 4.53, 3.49, 6.05]
    first = compare("trust_mean", 2, "intervention=lamp", a, "intervention=none", b, seed=seed_for("s", "m"))
    again = compare("trust_mean", 2, "intervention=lamp", a, "intervention=none", b, seed=seed_for("s", "m"))
    assert first == again
    line = first.line()
    assert tuple(line) == KEYS
    assert (line["n"], line["n_baseline"], line["mean"], line["mean_baseline"]) == (5, 5, 6.6, 4.65)
    assert line["diff"] == pytest.approx(1.95)
    assert line["ci_low"] < 1.95 < line["ci_high"] and line["ci_low"] > 0
    assert line["p_value"] == pytest.approx(exact_two_sided(a, b))  # 252 splits: exact, whatever the seed
    other = compare("trust_mean", 2, "x", a, "y", b, seed=seed_for("another study", "m"))
    assert (other.ci_low, other.ci_high) != (first.ci_low, first.ci_high)  # the resampling follows the seed


def test_a_scale_measure_uses_cliffs_delta():
    got = compare("safe", 1, "b", [3, 4, 5], "a", [1, 2, 4], seed=1, scale=True)
    assert got.effect == "cliff_delta" and got.effect_size == pytest.approx(6 / 9)


def test_too_few_runs_says_so_and_claims_nothing():
    got = compare("deaths", 1, "b", [3], "a", [1, 2], seed=1)
    assert (got.n, got.n_baseline, got.diff) == (1, 2, 1.5)
    assert (got.ci_low, got.ci_high, got.p_value, got.effect_size) == (None, None, None, None)
    assert got.note.startswith("n too small to say anything: 1 and 2 run(s)")
    missing = compare("rate", 1, "b", [None, float("nan"), 2.0], "a", [1.0, ""], seed=1)
    assert (missing.n, missing.n_baseline) == (1, 1) and "n too small" in missing.note


def test_the_p_value_is_roughly_uniform_under_a_null():
    """Two arms of six runs drawn from one distribution, 300 times: the p-values spread evenly over
    0-1 (each exact over the 924 splits), and about 5 % fall at or below 0.05."""
    rng = np.random.default_rng(2026)
    p = np.array([permutation_p(rng.normal(0, 1, 6), rng.normal(0, 1, 6), seed=i) for i in range(300)])
    assert 0.01 <= np.mean(p <= 0.05) <= 0.10
    assert 0.44 <= np.mean(p) <= 0.56
    deciles = np.histogram(p, bins=10, range=(0, 1))[0]
    assert deciles.min() >= 15 and deciles.max() <= 50, deciles  # 30 expected in each
    assert RESAMPLES >= 924  # so those were exact, not Monte Carlo


def test_an_arms_interval_of_the_mean_matches_the_normal_theory_interval_on_a_large_sample():
    from voyage.studies.stats import ArmSummary, summarise

    x = np.random.default_rng(5).normal(3, 1.5, 500)
    got = summarise(list(x), seed=9)
    se = np.std(x, ddof=1) / math.sqrt(len(x))
    assert (got.n, got.mean) == (500, pytest.approx(np.mean(x)))
    assert got.ci_low == pytest.approx(np.mean(x) - 1.96 * se, abs=0.02)
    assert got.ci_high == pytest.approx(np.mean(x) + 1.96 * se, abs=0.02)
    assert summarise([4.0, None], seed=1) == ArmSummary(1, 4.0, None, None)  # one run: no interval
    assert summarise([], seed=1).n == 0 and summarise([2.0, 2.0, 2.0], seed=1).ci_low == 2.0
