"""Reliability and distances (issue 40) against published worked examples and second implementations:
alpha against Hoyt's ANOVA form, ICC(3,1) against Shrout & Fleiss (1979) and a least-squares fit, omega
on a covariance a one-factor model fits exactly, distances against scipy.stats. Pure."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import wasserstein_distance

from voyage.instruments.distances import (ReferenceCSVError, ReferenceItem, distance, read_reference,
                                          total_variation, wasserstein)
from voyage.instruments.psychometrics import (MANY, NotComputable, cronbach_alpha, icc_3_1, mcdonald_omega,
                                              with_interval)

# Shrout & Fleiss (1979), Table 2: six targets rated by four judges; they report ICC(3,1) = .71.
SHROUT_FLEISS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], float)


def anova_by_least_squares(m):
    """Mean squares of rows and error from a fitted additive model (dummy-coded least squares)."""
    n, k = m.shape
    y = m.ravel()
    X = np.zeros((n * k, 1 + (n - 1) + (k - 1)))
    X[:, 0] = 1
    for i in range(n):
        for j in range(k):
            r = i * k + j
            if i:
                X[r, i] = 1
            if j:
                X[r, n - 1 + j] = 1
    fitted = X @ np.linalg.lstsq(X, y, rcond=None)[0]
    ss_error = ((y - fitted) ** 2).sum()
    row_means = m.mean(axis=1)
    ss_rows = k * ((row_means - m.mean()) ** 2).sum()
    return ss_rows / (n - 1), ss_error / ((n - 1) * (k - 1))


def test_icc_3_1_on_shrout_and_fleiss_and_a_least_squares_fit():
    value = icc_3_1(SHROUT_FLEISS)
    assert round(value, 2) == 0.71
    msr, mse = anova_by_least_squares(SHROUT_FLEISS)
    assert value == pytest.approx((msr - mse) / (msr + 3 * mse), abs=1e-9)


def test_alpha_is_hoyts_anova_reliability():
    rng = np.random.default_rng(3)
    m = np.clip(np.round(3 + rng.normal(size=(40, 1)) + rng.normal(size=(40, 8))), 1, 5)
    msr, mse = anova_by_least_squares(m)  # Hoyt (1941): alpha = 1 - MS(error) / MS(persons)
    assert cronbach_alpha(m) == pytest.approx(1 - mse / msr, abs=1e-6)
    # and the covariance form: k * mean covariance / (mean variance + (k-1) * mean covariance)
    cov = np.cov(m, rowvar=False)
    k = m.shape[1]
    mean_cov = (cov.sum() - np.trace(cov)) / (k * (k - 1))
    assert cronbach_alpha(m) == pytest.approx(k * mean_cov / (np.trace(cov) / k + (k - 1) * mean_cov), abs=1e-6)


def test_omega_on_data_a_one_factor_model_fits_exactly():
    loadings = np.array([0.8, 0.7, 0.6, 0.5, 0.4])
    unique = np.array([0.36, 0.51, 0.64, 0.75, 0.84])
    sigma = np.outer(loadings, loadings) + np.diag(unique)
    # data whose sample covariance is exactly sigma: whiten random data, then colour it
    rng = np.random.default_rng(0)
    z = rng.normal(size=(200, 5))
    z -= z.mean(axis=0)
    z = z @ np.linalg.inv(np.linalg.cholesky(np.cov(z, rowvar=False)).T)
    data = z @ np.linalg.cholesky(sigma).T
    assert np.allclose(np.cov(data, rowvar=False), sigma)
    expected = loadings.sum() ** 2 / (loadings.sum() ** 2 + unique.sum())
    assert mcdonald_omega(data) == pytest.approx(expected, abs=1e-6)


def test_what_cannot_be_computed_says_why():
    with pytest.raises(NotComputable, match="2 agents.*at least 3"):
        cronbach_alpha([[1, 2], [2, 3]])
    with pytest.raises(NotComputable, match="no variance"):
        cronbach_alpha([[3, 3, 3]] * 5)
    fig = with_interval(cronbach_alpha, np.full((5, 4), 3.0), 1)
    assert fig.value is None and "no variance" in fig.reason and fig.as_dict()["value"] is None


def test_an_interval_holds_its_value_and_is_seeded():
    rng = np.random.default_rng(5)
    m = np.clip(np.round(3 + rng.normal(size=(33, 1)) + rng.normal(size=(33, 6))), 1, 5)
    a, b = with_interval(cronbach_alpha, m, 7), with_interval(cronbach_alpha, m, 7)
    assert a == b and a.low < a.value < a.high and a.n == 33


@pytest.mark.parametrize("stat", [cronbach_alpha, mcdonald_omega, icc_3_1])
@pytest.mark.parametrize("strength", [1.0, 0.3, 0.0])
def test_the_resamples_computed_together_are_the_loops(stat, strength):
    """The bootstrap's stacked arithmetic (and omega's factor models followed side by side) gives each
    resample's figure as the statistic on that resample alone, and leaves out the same ones."""
    rng = np.random.default_rng(11)
    m = np.clip(np.round(3 + strength * rng.normal(size=(12, 1)) + 0.8 * rng.normal(size=(12, 8))), 1, 5)
    m[:, 0] = 3  # an item nobody varies on: its variance 0, as small populations give
    if stat is icc_3_1:
        m = m[:, :2]
    rows = rng.integers(0, 12, (300, 12))
    rows[0] = 4  # one agent drawn twelve times: no variance, not computable
    values, ok = MANY[stat](m[rows])
    for r, value, computable in zip(rows, values, ok):
        try:
            expected = stat(m[r])
        except NotComputable:
            assert not computable
            continue
        assert computable and value == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("p,q", [([0.2, 0.3, 0.5], [0.5, 0.3, 0.2]), ([1, 0, 0, 0], [0, 0, 0, 1]),
                                 ([0.1, 0.2, 0.3, 0.4, 0.0], [0.25, 0.25, 0.25, 0.25, 0.0])])
def test_distances_match_scipy(p, q):
    positions = np.arange(len(p))
    assert wasserstein(p, q) == pytest.approx(wasserstein_distance(positions, positions, p, q), abs=1e-12)
    assert total_variation(p, q) == pytest.approx(0.5 * np.abs(np.subtract(p, q)).sum())


def test_distance_of_answers_with_an_interval():
    ref = ReferenceItem("safe", "", ("1", "2", "3"), (0.5, 0.25, 0.25), "test")
    out = distance(["1"] * 2 + ["3"] * 2, ref, seed=1)
    assert out["agents_shares"] == [0.5, 0.0, 0.5]
    assert out["tv_distance"]["value"] == pytest.approx(0.25)
    assert out["wasserstein"]["value"] == pytest.approx(wasserstein_distance([0, 1, 2], [0, 1, 2], [.5, 0, .5],
                                                                             [.5, .25, .25]))
    low, high = out["tv_distance"]["interval"]
    assert low <= 0.25 <= high


def test_a_malformed_reference_csv_names_what_is_wrong():
    with pytest.raises(ReferenceCSVError, match="header must name item, option and share"):
        read_reference("question,answer\nx,y\n")
    with pytest.raises(ReferenceCSVError) as exc:
        read_reference("item,option,share\ntrust,yes,0.4\ntrust,no,abc\nfair,yes,40\nfair,no,0.6\ncare,a,0.3\n"
                       "care,b,0.3\n", "--reference people.csv")
    message = str(exc.value)
    assert message.startswith("--reference people.csv")
    assert "line 3: share 'abc' is not a number" in message
    assert "line 4: share 40.0 is outside 0-1" in message
    assert "item care: shares sum to 0.600, not 1" in message
    good = read_reference("item,option,share,group\ntrust,yes,0.3,old\ntrust,no,0.7,old\n")
    assert good[0].options == ("yes", "no") and good[0].group == "old"
