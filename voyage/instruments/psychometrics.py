"""Reliability as psychometricians compute it, on a matrix of answers (rows: agents, columns: the
items of one scale, reverse keys already applied). Pure numpy; every figure that cannot be computed
(too few agents, no variance) comes back as a reason instead of a number.

- Cronbach's alpha: k/(k-1) * (1 - sum of item variances / variance of the sum).
- McDonald's omega (total) from a one-factor model fitted by iterated principal-axis factoring on the
  covariance matrix: (sum of loadings)^2 / ((sum of loadings)^2 + sum of unique variances).
- ICC(3,1), two-way mixed, consistency, single measure (Shrout & Fleiss 1979): from the two-way ANOVA
  mean squares of an agents x occasions matrix, (MSR - MSE) / (MSR + (k-1) MSE).
- Intervals: percentile bootstrap over agents (rows), with a seeded numpy Generator. The resamples are
  computed together, as one stack of matrices (`*_many`: the same arithmetic over a leading axis, the
  factor models iterated side by side), which gives the loop's figures at a tenth of its cost."""
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


# The same statistics over a stack of matrices (resamples x agents x items): (values, computable), the
# value of a resample that is not computable left at nan and its flag False.

def cronbach_alpha_many(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    k = s.shape[2]
    total = s.sum(axis=2).var(axis=1, ddof=1)
    ok = total != 0
    with np.errstate(divide="ignore", invalid="ignore"):
        values = k / (k - 1) * (1 - s.var(axis=1, ddof=1).sum(axis=1) / total)
    return np.where(ok, values, np.nan), ok


def _top_pairs(reduced: np.ndarray, vectors: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(largest eigenvalue, its unit eigenvector) of each matrix of a stack. With `vectors` (each close to
    its matrix's top eigenvector: the previous step's, the matrix having moved only on its diagonal), by
    Rayleigh-quotient iteration, a few small solves instead of a full decomposition; the caller checks
    at the end that the pair it converged to is the top one."""
    if vectors is not None:
        v = vectors.copy()
        value = np.empty(len(v))
        eye = np.eye(reduced.shape[1])
        scale = np.abs(reduced).max(axis=(1, 2))
        todo = np.arange(len(v))  # the matrices whose pair is not there yet
        try:
            for _ in range(RAYLEIGH_STEPS):
                a, w = reduced[todo], v[todo]
                # the shift nudged off the eigenvalue, so no solve is singular
                shift = np.einsum("bi,bij,bj->b", w, a, w) + SHIFT_NUDGE * scale[todo]
                x = np.linalg.solve(a - shift[:, None, None] * eye, w[:, :, None])[:, :, 0]
                w = x / np.linalg.norm(x, axis=1, keepdims=True)
                value[todo] = np.einsum("bi,bij,bj->b", w, a, w)
                v[todo] = w
                residual = np.linalg.norm(np.einsum("bij,bj->bi", a, w) - value[todo, None] * w, axis=1)
                todo = todo[~(residual <= 1e-12 * scale[todo])]  # nan stays to do
                if not len(todo):
                    break
            if len(todo):
                values, vecs = np.linalg.eigh(reduced[todo])
                value[todo], v[todo] = values[:, -1], vecs[:, :, -1]
            return value, v
        except np.linalg.LinAlgError:
            pass  # a shift hit an eigenvalue exactly: decompose them all
    values, vecs = np.linalg.eigh(reduced)
    return values[:, -1], vecs[:, :, -1]


RAYLEIGH_STEPS = 3
SHIFT_NUDGE = 1e-9


def one_factor_many(cov: np.ndarray, iterations: int = 1000, tol: float = 1e-10,
                    exact: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """`one_factor` of each matrix of a stack, iterated side by side: each stops when it has converged.
    After the first step each top eigenpair is followed from the last (see _top_pairs), and a matrix
    whose pair at the end is not its largest is fitted again by full decompositions (`exact`)."""
    diag = np.diagonal(cov, axis1=1, axis2=2).copy()
    sd = np.sqrt(diag)
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = np.nan_to_num(cov / (sd[:, :, None] * sd[:, None, :]))
    k = cov.shape[1]
    corr[:, np.arange(k), np.arange(k)] = 0
    communal = diag * np.abs(corr).max(axis=2)
    loadings = np.sqrt(communal)
    vectors = np.zeros_like(diag)
    tops = np.zeros(len(cov))
    active = np.arange(len(cov))
    for step in range(iterations):
        if not len(active):
            break
        reduced = cov[active].copy()
        reduced[:, np.arange(k), np.arange(k)] = communal[active]
        if step == 0 and not exact:  # every matrix starts from the top vector of their mean (resamples are alike)
            _, mean_vector = _top_pairs(reduced.mean(axis=0)[None], None)
            vectors[:] = mean_vector
        value, vector = _top_pairs(reduced, None if exact else vectors[active])
        load = vector * np.sqrt(np.maximum(value, 0.0))[:, None]
        new = np.clip(load ** 2, 0, diag[active])
        converged = np.abs(new - communal[active]).max(axis=1) < tol
        loadings[active], communal[active], vectors[active], tops[active] = load, new, vector, value
        active = active[~converged]
    if not exact:
        final = cov.copy()
        final[:, np.arange(k), np.arange(k)] = communal
        largest = np.linalg.eigvalsh(final)[:, -1]
        wrong = ~np.isclose(largest, tops, rtol=1e-9, atol=1e-12)
        if wrong.any():
            loadings[wrong], _ = one_factor_many(cov[wrong], iterations, tol, exact=True)
    loadings = np.where((loadings.sum(axis=1) < 0)[:, None], -loadings, loadings)
    return loadings, diag - loadings ** 2


def mcdonald_omega_many(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = s.shape[1]
    centred = s - s.mean(axis=1, keepdims=True)
    cov = np.einsum("bni,bnj->bij", centred, centred) / (n - 1)
    ok = ~(np.diagonal(cov, axis1=1, axis2=2) == 0).all(axis=1) & (s.sum(axis=2).var(axis=1, ddof=1) != 0)
    values = np.full(len(s), np.nan)
    if ok.any():
        loadings, unique = one_factor_many(cov[ok])
        common = loadings.sum(axis=1) ** 2
        values[ok] = common / (common + unique.sum(axis=1))
    return values, ok


def icc_3_1_many(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n, k = s.shape[1], s.shape[2]
    grand = s.mean(axis=(1, 2))
    ss_rows = k * ((s.mean(axis=2) - grand[:, None]) ** 2).sum(axis=1)
    ss_cols = n * ((s.mean(axis=1) - grand[:, None]) ** 2).sum(axis=1)
    ss_error = ((s - grand[:, None, None]) ** 2).sum(axis=(1, 2)) - ss_rows - ss_cols
    ms_rows, ms_error = ss_rows / (n - 1), ss_error / ((n - 1) * (k - 1))
    ok = ms_rows + (k - 1) * ms_error != 0
    with np.errstate(divide="ignore", invalid="ignore"):
        values = (ms_rows - ms_error) / (ms_rows + (k - 1) * ms_error)
    return np.where(ok, values, np.nan), ok


MANY = {cronbach_alpha: cronbach_alpha_many, mcdonald_omega: mcdonald_omega_many, icc_3_1: icc_3_1_many}


def resampled(stat, m: np.ndarray, rows: np.ndarray) -> list[float]:
    """`stat` of every resample (rows: resamples x agents' indices) that it can be computed on."""
    many = MANY.get(stat)
    if many is not None:
        try:
            values, ok = many(m[rows])
            return list(values[ok])
        except np.linalg.LinAlgError:
            pass  # a factor model that would not converge: resample by resample, skipping that one
    draws = []
    for r in rows:
        try:
            draws.append(stat(m[r]))
        except NotComputable:
            continue  # a resample with no variance has no value; the interval is over the rest
    return draws


def with_interval(stat, x, seed: int, resamples: int = BOOTSTRAP) -> Figure:
    """`stat(x)` and its percentile-bootstrap interval over rows (agents)."""
    m = np.asarray(x, dtype=float)
    n = m.shape[0] if m.ndim == 2 else 0
    try:
        value = float(stat(m))
    except NotComputable as exc:
        return Figure(None, n=n, reason=str(exc))
    rng = np.random.default_rng(seed)
    draws = resampled(stat, m, rng.integers(0, n, (resamples, n)))
    if len(draws) < resamples // 2:
        return Figure(value, n=n, reason="too few resamples with variance for an interval")
    tail = (1 - LEVEL) / 2
    low, high = np.quantile(draws, [tail, 1 - tail])
    return Figure(value, float(low), float(high), n=n)
