"""The judge's self-checks on hand-made data, against values computed independently: Krippendorff's
α (the `krippendorff` package, Krippendorff's own worked example, and the formula by hand), the
order-flip share, the Wilson interval (Newcombe 1998's worked examples), and the verdict."""
from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pytest

from voyage.judging.reliability import (DOUBTFUL, RELIABLE, UNRELIABLE, agreement, alpha, detection, flip_share,
                                        verdict)
from voyage.judging.rubric import DEFAULT_VERDICT


def test_alpha_matches_the_package_on_data_with_a_gap():
    # STACK.md §10: the krippendorff package gives 0.9428 on these two raters (interval, one rating missing).
    first = [1, 2, 3, 3, 2, 1, 4, 1, 2, None]
    second = [1, 2, 3, 3, 2, 2, 4, 1, 2, 5]
    assert alpha(first, second) == pytest.approx(0.9428, abs=1e-4)


def test_alpha_matches_krippendorffs_worked_example():
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", binary data, two observers,
    # ten units: alpha = 0.095 (on 0/1 values the interval metric is the nominal one).
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    assert alpha(a, b) == pytest.approx(0.095, abs=5e-4)


def _alpha_by_hand(a: list[float], b: list[float]) -> float:
    """Two raters, no gaps: 1 - D_o / D_e with the interval metric over pairable values."""
    values = a + b
    n = len(values)
    observed = sum(2 * (x - y) ** 2 for x, y in zip(a, b)) / n
    expected = sum((x - y) ** 2 for x, y in itertools.permutations(values, 2)) / (n * (n - 1))
    return 1 - observed / expected


@pytest.mark.parametrize("seed", range(5))
def test_alpha_matches_the_formula_by_hand(seed):
    rng = np.random.default_rng(seed)
    a = [float(v) for v in rng.integers(1, 6, 12)]
    b = [float(min(5, max(1, v + rng.integers(-1, 2)))) for v in a]
    assert alpha(a, b) == pytest.approx(_alpha_by_hand(a, b), abs=1e-4)
    assert alpha(a, b) == pytest.approx(krippendorff.alpha(reliability_data=np.array([a, b]),
                                                           level_of_measurement="interval"), abs=1e-4)


def test_alpha_is_none_where_it_is_not_defined():
    assert alpha([3, 3, 3], [3, 3, 3]) is None  # one value throughout: no variance to agree on
    assert alpha([1, None, None], [2, 3, None]) is None  # one unit rated by both


def test_agreement_is_the_share_rated_alike():
    assert agreement([1, 2, None, 4], [1, 3, 5, 4]) == pytest.approx(2 / 3, abs=1e-4)
    assert agreement([None], [1]) is None


def test_the_flip_share_counts_pairs_answered_both_ways():
    # (winner when X was shown first, winner when Y was): two agree, one flips; one unanswered is left out
    assert flip_share([("x", "x"), ("x", "y"), (None, "x"), ("y", "y")]) == (pytest.approx(1 / 3, abs=1e-4), 3)
    assert flip_share([(None, None)]) == (None, 0)


def test_the_wilson_interval_matches_newcombes_worked_examples():
    # Newcombe (1998), Statistics in Medicine 17:857, table I: 81/263 -> 0.2553 to 0.3662; 15/148 -> 0.0624 to 0.1605
    assert detection(81, 263) == {"rate": 0.308, "low": 0.2553, "high": 0.3662, "n": 263}
    found = detection(15, 148)
    assert (found["low"], found["high"]) == (0.0624, 0.1605)
    assert detection(0, 0)["rate"] is None


def _checks(**over) -> dict:
    base = {"repeat_alpha": 0.9, "judges_alpha": None, "order_flip_share": 0.05, "missing_share": 0.0,
            "planted_detection": {"repetition": detection(10, 10), "anachronism": detection(9, 10)}}
    return {**base, **over}


def test_the_verdict_in_words():
    assert verdict(_checks(), DEFAULT_VERDICT) == (RELIABLE, [])
    word, reasons = verdict(_checks(repeat_alpha=0.7), DEFAULT_VERDICT)
    assert word == DOUBTFUL and reasons == ["repeat_alpha 0.7 < 0.8"]
    word, reasons = verdict(_checks(order_flip_share=0.95), DEFAULT_VERDICT)
    assert word == UNRELIABLE and reasons == ["order_flip_share 0.95 > 0.3"]
    word, reasons = verdict(_checks(repeat_alpha=0.05), DEFAULT_VERDICT)
    assert word == UNRELIABLE
    word, reasons = verdict(_checks(planted_detection={"repetition": detection(2, 10)}), DEFAULT_VERDICT)
    assert word == UNRELIABLE and reasons == ["repetition detected 0.2 < 0.5"]
    word, reasons = verdict(_checks(order_flip_share=None), DEFAULT_VERDICT)
    assert word == DOUBTFUL and "order_flip_share could not be measured" in reasons
    assert verdict(_checks(judges_alpha=0.3), DEFAULT_VERDICT)[0] == UNRELIABLE
    # every repeat alike on one value: α is undefined, and whole agreement stands in for it
    assert verdict(_checks(repeat_alpha=None, repeat_agreement=1.0), DEFAULT_VERDICT) == (RELIABLE, [])
    assert verdict(_checks(repeat_alpha=None, repeat_agreement=0.9), DEFAULT_VERDICT)[0] == DOUBTFUL
    stricter = {**DEFAULT_VERDICT, "reliable": {**DEFAULT_VERDICT["reliable"], "repeat_alpha": 0.95}}
    assert verdict(_checks(), stricter)[0] == DOUBTFUL  # the thresholds are the rubric's to edit
