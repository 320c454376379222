"""Reliability as psychometricians compute it, on a matrix of answers (rows: agents, columns: the
items of one scale, reverse keys already applied). Pure numpy; every figure that cannot be computed
(too few agents, no variance) comes back as a reason instead of a number.

- Cronbach's alpha: k/(k-1) * (1 - sum of item variances / variance of the sum).
- McDonald's omega (total) from a one-factor model fitted by iterated principal-axis factoring on the
  covariance matrix: (sum of loadings)^2 / ((sum of loadings)^2 + sum of unique variances).
- ICC(3,1), two-way mixed, consistency, single measure (Shrout & Fleiss 1979): from the two-way ANOVA
  mean squares of an agents x occasions matrix, (MSR - MSE) / (MSR + (k-1) MSE).
- Intervals: percentile bootstrap over agents (rows), with a seeded numpy Generator."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MIN_AGENTS = 3
BOOTSTRAP = 500
OMEGA_BOOTSTRAP = 200  # each resample fits a factor model: fewer, to keep a study's figures within seconds
LEVEL = 0.95


@dataclass(frozen=True)
class Figure:
    """A statistic with its percentile-bootstrap interval, or why there is none."""
    value: float | None
    low: float | None = None
    high: float | None = None
    n: int = 0
    reason: str = ""

    def as_dict(self) -> dict:
        out = {"value": _r(self.value), "interval": [_r(self.low), _r(self.high)] if self.low is not None else None,
               "n": self.n}
        if self.reason:
            out["reason"] = self.reason
        return out


def _r(x):
    return None if x is None else round(float(x), 4)


class NotComputable(ValueError):
    pass


def _matrix(x) -> np.ndarray:
    m = np.asarray(x, dtype=float)
    if m.ndim != 2 or m.shape[0] < MIN_AGENTS:
        raise NotComputable(f"{m.shape[0] if m.ndim == 2 else 0} agents with every item answered: "
                            f"at least {MIN_AGENTS} are needed")
    if m.shape[1] < 2:
        raise NotComputable("fewer than 2 items")
    return m


def cronbach_alpha(x) -> float:
    m = _matrix(x)
    k = m.shape[1]
    total = m.sum(axis=1).var(ddof=1)
    if total == 0:
        raise NotComputable("no variance: every agent gave the same total")
    return k / (k - 1) * (1 - m.var(axis=0, ddof=1).sum() / total)


def one_factor(cov: np.ndarray, iterations: int = 1000, tol: float = 1e-10) -> tuple[np.ndarray, np.ndarray]:
    """(loadings, unique variances) of a one-factor model of `cov`, by iterated principal axes."""
    diag = np.diag(cov).copy()
    sd = np.sqrt(diag)
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = np.nan_to_num(cov / np.outer(sd, sd))
    np.fill_diagonal(corr, 0)
    # start from each item's largest correlation (works on singular matrices, as bootstrap resamples are)
    communal = diag * np.abs(corr).max(axis=1)
    loadings = np.sqrt(communal)
    for _ in range(iterations):
        reduced = cov.copy()
        np.fill_diagonal(reduced, communal)
        values, vectors = np.linalg.eigh(reduced)
        loadings = vectors[:, -1] * np.sqrt(max(values[-1], 0.0))
        new = np.clip(loadings ** 2, 0, diag)
        if np.max(np.abs(new - communal)) < tol:
            communal = new
            break
        communal = new
    if loadings.sum() < 0:
        loadings = -loadings
    return loadings, diag - loadings ** 2


def mcdonald_omega(x) -> float:
    m = _matrix(x)
    cov = np.cov(m, rowvar=False)
    if np.all(np.diag(cov) == 0) or m.sum(axis=1).var(ddof=1) == 0:
        raise NotComputable("no variance: every agent gave the same answers")
    try:
        loadings, unique = one_factor(cov)
    except np.linalg.LinAlgError:
        raise NotComputable("the one-factor model did not converge") from None
    common = loadings.sum() ** 2
    return common / (common + unique.sum())


def icc_3_1(x) -> float:
    """ICC(3,1) of an agents x occasions matrix."""
    m = _matrix(x)
    n, k = m.shape
    grand = m.mean()
    ss_rows = k * ((m.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((m.mean(axis=0) - grand) ** 2).sum()
    ss_error = ((m - grand) ** 2).sum() - ss_rows - ss_cols
    ms_rows, ms_error = ss_rows / (n - 1), ss_error / ((n - 1) * (k - 1))
    if ms_rows + (k - 1) * ms_error == 0:
        raise NotComputable("no variance between agents or occasions")
    return (ms_rows - ms_error) / (ms_rows + (k - 1) * ms_error)


def with_interval(stat, x, seed: int, resamples: int = BOOTSTRAP) -> Figure:
    """`stat(x)` and its percentile-bootstrap interval over rows (agents)."""
    m = np.asarray(x, dtype=float)
    n = m.shape[0] if m.ndim == 2 else 0
    try:
        value = float(stat(m))
    except NotComputable as exc:
        return Figure(None, n=n, reason=str(exc))
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(resamples):
        try:
            draws.append(stat(m[rng.integers(0, n, n)]))
        except NotComputable:
            continue  # a resample with no variance has no value; the interval is over the rest
    if len(draws) < resamples // 2:
        return Figure(value, n=n, reason="too few resamples with variance for an interval")
    tail = (1 - LEVEL) / 2
    low, high = np.quantile(draws, [tail, 1 - tail])
    return Figure(value, float(low), float(high), n=n)
