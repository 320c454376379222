"""Many comparisons (issue 40, item 6): Holm and Benjamini-Hochberg adjusted p-values agree with
statsmodels and with Benjamini & Hochberg's (1995) own example; the forest plot draws the table's
numbers. Pure."""
from __future__ import annotations

import re

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from voyage.studies.adjust import BH, HOLM, adjust, family_of, with_adjusted
from voyage.studies.forest import forest_rows, forest_svg
from voyage.studies.stats import Comparison

# Benjamini & Hochberg (1995), section 4.1: fifteen p-values; at level 0.05 their procedure rejects the
# four smallest, while Bonferroni-type procedures (Holm) reject three.
BH_1995 = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262, 0.5719,
           0.6528, 0.7590, 1.000]


def test_the_published_example():
    assert (adjust(BH_1995, BH) <= 0.05).sum() == 4
    assert (adjust(BH_1995, HOLM) <= 0.05).sum() == 3


@pytest.mark.parametrize("method,theirs", [(HOLM, "holm"), (BH, "fdr_bh")])
def test_agrees_with_statsmodels(method, theirs):
    rng = np.random.default_rng(40)
    for p in (BH_1995, rng.uniform(size=50), np.concatenate([rng.uniform(0, 0.01, 5), rng.uniform(size=45)]),
              [0.01, 0.01, 0.04, 0.04, 0.5]):
        assert adjust(p, method) == pytest.approx(multipletests(p, method=theirs)[1], abs=1e-12)


def comparison(measure, arm, p, diff=0.5, low=0.1, high=0.9):
    return Comparison(measure, 1, arm, "intervention=none", 5, 5, 1.0, 0.5, diff, low, high, p, 0.8, "cohen_d")


def test_comparisons_without_a_p_value_are_not_counted():
    found = with_adjusted([comparison("trust_mean", "a", 0.01), comparison("words", "a", None),
                           comparison("deaths", "a", 0.02)])
    assert found[1].p_adjusted is None
    assert [found[0].p_adjusted, found[2].p_adjusted] == pytest.approx(list(multipletests([0.01, 0.02],
                                                                                          method="holm")[1]))
    assert "p_adjusted" in found[0].line() and found[0].line()["p_adjusted"] == pytest.approx(0.02)


def test_families():
    assert family_of("trust_net_density") == "networks" and family_of("trust_mean") == "trust"
    assert family_of("survey_t240_safe_mean") == "surveys" and family_of("agents_rung_2") == "ladder"
    assert family_of("tokens") == "health" and family_of("written_summaries") == "memory"


def test_the_forest_plot_draws_the_tables_points_and_intervals_grouped_by_family():
    table = with_adjusted([comparison("words", "lamp", 0.001, 120.0, 40.0, 200.0),
                           comparison("trust_mean", "lamp", 0.3, -0.05, -0.2, 0.1),
                           comparison("deaths", "lamp", None, 1.0, None, None)])
    rows = forest_rows(table)
    assert [r["family"] for r in rows] == ["speech", "trust"]  # the family order; no interval: not drawn
    svg = forest_svg(rows)
    drawn = re.findall(r'data-measure="([^"]+)" data-arm="[^"]+" data-diff="([^"]+)" data-low="([^"]+)" '
                       r'data-high="([^"]+)"', svg)
    assert [(m, float(d), float(lo), float(hi)) for m, d, lo, hi in drawn] == \
        [(c.measure, c.diff, c.ci_low, c.ci_high) for c in (table[0], table[1])]
    assert "p adj" in svg and "<script" not in svg


def test_labels_are_escaped():
    svg = forest_svg(forest_rows([comparison("survey_t1_x_<b>", "<script>alert(1)</script>", 0.5)]))
    assert "<script>" not in svg and "&lt;script&gt;" in svg
