"""Statistics between a study's arms, pure (no ORM): for one measure on one day, each arm against the
baseline arm — n, the means, the difference in means with a 95 % bootstrap confidence interval over
the seeds, a two-sided permutation-test p-value, and an effect size (Cohen's d; Cliff's delta for a
scale, whose steps are ordered but not evenly spaced).

Resampling is SciPy's (`scipy.stats.bootstrap`, `scipy.stats.permutation_test`), each with its own
generator seeded from the study, the measure, the day and the arm (`seed_for`), so the same study
gives the same numbers every time. The permutation test is exact — every split of the runs between
the two arms — whenever there are no more splits than resamples (9,999: up to 7 + 7 runs), and Monte
Carlo beyond.
"""
from __future__ import annotations

import math
import warnings
import zlib
from dataclasses import asdict, dataclass

import numpy as np

CONFIDENCE = 0.95
RESAMPLES = 9999
MIN_RUNS = 2  # per arm: with one run there is no spread, so nothing to say about a difference
TOO_SMALL = "n too small to say anything: {n} and {n_baseline} run(s); at least {min} per arm are needed"
KEYS = ("measure", "day", "arm", "baseline", "n", "n_baseline", "mean", "mean_baseline", "diff", "ci_low",
        "ci_high", "p_value", "p_adjusted", "effect_size")


@dataclass(frozen=True)
class Comparison:
    measure: str
    day: int
    arm: str
    baseline: str
    n: int
    n_baseline: int
    mean: float | None
    mean_baseline: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    effect_size: float | None
    effect: str  # "cohen_d" or "cliff_delta"
    note: str = ""  # why some numbers are missing
    p_adjusted: float | None = None  # for the number of comparisons in its table (voyage/studies/adjust.py)
    verdict: str | None = None  # a judge's score: the judge's verdict on itself (the worst over the runs compared)

    def line(self) -> dict:
        """The JSON line / CSV row: the keys of KEYS, numbers rounded to six significant digits; and
        `verdict` for a judge's score."""
        out = asdict(self)
        line = {k: _round(out[k]) for k in KEYS}
        if self.verdict is not None:
            line["verdict"] = self.verdict
        return line


def _round(value):
    if isinstance(value, float):
        return float(f"{value:.6g}") if math.isfinite(value) else None
    return value


def seed_for(*parts) -> int:
    """A stable seed from the study's name and what is compared (not the database's ids, which an
    export and import would change)."""
    return zlib.crc32("\x1f".join(str(p) for p in parts).encode())


def _mean_diff(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def cohen_d(x, y) -> float | None:
    """(mean x − mean y) / pooled standard deviation (sample variances weighted by n − 1); None when
    the pooled spread is zero or an arm has fewer than two values."""
    n1, n2 = len(x), len(y)
    if n1 < 2 or n2 < 2:
        return None
    pooled = ((n1 - 1) * np.var(x, ddof=1) + (n2 - 1) * np.var(y, ddof=1)) / (n1 + n2 - 2)
    if pooled == 0:
        return None
    return float((np.mean(x) - np.mean(y)) / math.sqrt(pooled))


def cliff_delta(x, y) -> float | None:
    """P(X > Y) − P(X < Y) over every pair of one value from each arm: −1 to 1, 0 for no shift."""
    if not len(x) or not len(y):
        return None
    a, b = np.asarray(x, float)[:, None], np.asarray(y, float)[None, :]
    return float(((a > b).sum() - (a < b).sum()) / (a.size * b.size))


def bootstrap_ci(x, y, seed: int) -> tuple[float | None, float | None]:
    """The 95 % percentile bootstrap interval of mean(x) − mean(y), each arm resampled on its own.
    (Percentile rather than BCa: BCa's jackknife breaks down on the two or three runs a small study
    has per arm.)"""
    from scipy import stats  # lazy: SciPy (~75 MB) loads for a comparison, not in every process importing this

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a degenerate sample (all runs equal) gives a zero-width interval
        res = stats.bootstrap((np.asarray(x, float), np.asarray(y, float)), _mean_diff, vectorized=True,
                              n_resamples=RESAMPLES, confidence_level=CONFIDENCE, method="percentile",
                              rng=np.random.default_rng(seed))
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return (low if math.isfinite(low) else None), (high if math.isfinite(high) else None)


def permutation_p(x, y, seed: int) -> float:
    """Two-sided p-value of the difference in means under the null that the arm labels are
    exchangeable (SciPy: 2 × the smaller one-sided tail, at most 1)."""
    from scipy import stats  # lazy: see bootstrap_ci

    res = stats.permutation_test((np.asarray(x, float), np.asarray(y, float)), _mean_diff, vectorized=True,
                                 permutation_type="independent", alternative="two-sided",
                                 n_resamples=RESAMPLES, rng=np.random.default_rng(seed))
    return float(res.pvalue)


def compare(measure: str, day: int, arm: str, values, baseline: str, baseline_values, *, seed: int,
            scale: bool = False) -> Comparison:
    """One arm against the baseline. `values`: the measure's value in each run of the arm (None and
    NaN are runs without a value and are left out)."""
    x = [float(v) for v in values if v is not None and not _nan(v)]
    y = [float(v) for v in baseline_values if v is not None and not _nan(v)]
    kind = "cliff_delta" if scale else "cohen_d"
    mean = float(np.mean(x)) if x else None
    mean_b = float(np.mean(y)) if y else None
    diff = mean - mean_b if x and y else None
    common = dict(measure=measure, day=day, arm=arm, baseline=baseline, n=len(x), n_baseline=len(y), mean=mean,
                  mean_baseline=mean_b, diff=diff, effect=kind)
    if len(x) < MIN_RUNS or len(y) < MIN_RUNS:
        return Comparison(**common, ci_low=None, ci_high=None, p_value=None, effect_size=None,
                          note=TOO_SMALL.format(n=len(x), n_baseline=len(y), min=MIN_RUNS))
    low, high = bootstrap_ci(x, y, seed)
    effect = cliff_delta(x, y) if scale else cohen_d(x, y)
    note = "" if effect is not None else "no effect size: every run of both arms has the same value"
    return Comparison(**common, ci_low=low, ci_high=high, p_value=permutation_p(x, y, seed + 1),
                      effect_size=effect, note=note)


def _nan(v) -> bool:
    try:
        return math.isnan(float(v))
    except (TypeError, ValueError):
        return True  # not a number at all: no value


@dataclass(frozen=True)
class ArmSummary:
    """One arm's values of a measure: n, mean, and the 95 % percentile bootstrap interval of the mean
    (None with fewer than MIN_RUNS runs)."""
    n: int
    mean: float | None
    ci_low: float | None
    ci_high: float | None


def summarise(values, seed: int) -> ArmSummary:
    x = [float(v) for v in values if v is not None and not _nan(v)]
    if not x:
        return ArmSummary(0, None, None, None)
    if len(x) < MIN_RUNS:
        return ArmSummary(len(x), x[0], None, None)
    from scipy import stats  # lazy: see bootstrap_ci

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.bootstrap((np.asarray(x),), np.mean, vectorized=True, n_resamples=RESAMPLES,
                              confidence_level=CONFIDENCE, method="percentile", rng=np.random.default_rng(seed))
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return ArmSummary(len(x), float(np.mean(x)), low if math.isfinite(low) else None,
                      high if math.isfinite(high) else None)
