"""How far the judge can be trusted on this use: Krippendorff's α (interval) between two passes or two
judges, the share of pairwise verdicts that flip with the order, the planted defects' detection
rate with its Wilson 95 % interval, and the verdict in plain words from the rubric's thresholds.
Pure: plain numbers in, plain numbers out."""
from __future__ import annotations

import math

RELIABLE, DOUBTFUL, UNRELIABLE = "reliable", "doubtful", "unreliable"


def alpha(first: list[float | None], second: list[float | None]) -> float | None:
    """Krippendorff's α (interval) between two raters over the same units (None: no rating). None
    when it is not defined: fewer than two units rated by both, or a single value throughout."""
    pairs = [(a, b) for a, b in zip(first, second, strict=True)]
    both = [(a, b) for a, b in pairs if a is not None and b is not None]
    values = {v for ab in both for v in ab}
    if len(both) < 2 or len(values) < 2:
        return None
    import krippendorff  # lazy, as numpy and SciPy here: their weight (scipy.stats ~75 MB) loads with a judging,
    import numpy as np  # not in every process whose startup imports this module (run_voyage, the workers)

    data = np.array([[np.nan if a is None else a for a, _ in pairs], [np.nan if b is None else b for _, b in pairs]],
                    dtype=float)
    return round(float(krippendorff.alpha(reliability_data=data, level_of_measurement="interval")), 4)


def agreement(first: list[float | None], second: list[float | None]) -> float | None:
    """The share of units rated alike by both (None: no unit rated by both). Beside α, and what the
    verdict reads when α is not defined because every rating was the same."""
    both = [(a, b) for a, b in zip(first, second, strict=True) if a is not None and b is not None]
    return round(sum(1 for a, b in both if a == b) / len(both), 4) if both else None


def flip_share(verdicts: list[tuple[str | None, str | None]]) -> tuple[float | None, int]:
    """Each pair asked twice, (the winner's id when X was shown first, when Y was): the share whose
    winner changed with the order, over the pairs answered both times, and that count."""
    both = [(a, b) for a, b in verdicts if a is not None and b is not None]
    if not both:
        return None, 0
    return round(sum(1 for a, b in both if a != b) / len(both), 4), len(both)


def detection(found: int, n: int) -> dict:
    """The detection rate with its Wilson score 95 % interval (Newcombe 1998, method 3)."""
    if n == 0:
        return {"rate": None, "low": None, "high": None, "n": 0}
    from scipy.stats import binomtest  # lazy: see `alpha`

    ci = binomtest(found, n).proportion_ci(confidence_level=0.95, method="wilson")
    return {"rate": round(found / n, 4), "low": round(float(ci.low), 4), "high": round(float(ci.high), 4), "n": n}


def verdict(checks: dict, thresholds: dict) -> tuple[str, list[str]]:
    """(word, reasons) from `checks`: repeat_alpha, judges_alpha (None: one judge), order_flip_share,
    planted_detection {kind: {rate, ...}}, missing_share. Unreliable when any check falls below the
    `unreliable` bar (or half the judgements are missing); reliable when every check was measured and
    meets the `reliable` bar; doubtful otherwise, saying what fell short or could not be measured."""
    bad, short = thresholds["unreliable"], thresholds["reliable"]
    worst, unmet = [], []

    def judge_at_least(name: str, value):
        if value is None or (isinstance(value, float) and math.isnan(value)):
            unmet.append(f"{name} could not be measured")
        elif value < bad[name]:
            worst.append(f"{name} {value} < {bad[name]}")
        elif value < short[name]:
            unmet.append(f"{name} {value} < {short[name]}")

    if checks.get("repeat_alpha") is None and checks.get("repeat_agreement") == 1.0:
        pass  # every repeat rated alike and with one value throughout: α is undefined, agreement is whole
    else:
        judge_at_least("repeat_alpha", checks.get("repeat_alpha"))
    if checks.get("judges_alpha") is not None:
        judge_at_least("judges_alpha", checks["judges_alpha"])
    flips = checks.get("order_flip_share")
    if flips is None:
        unmet.append("order_flip_share could not be measured")
    elif flips > bad["order_flip_share"]:
        worst.append(f"order_flip_share {flips} > {bad['order_flip_share']}")
    elif flips > short["order_flip_share"]:
        unmet.append(f"order_flip_share {flips} > {short['order_flip_share']}")
    planted = checks.get("planted_detection") or {}
    if not any(d["n"] for d in planted.values()):
        unmet.append("no planted defect could be made")
    for kind, d in sorted(planted.items()):
        if d["n"] == 0:
            continue  # this kind could not be planted here (the job's figures show n = 0)
        if d["rate"] < bad["detection"]:
            worst.append(f"{kind} detected {d['rate']} < {bad['detection']}")
        elif d["rate"] < short["detection"]:
            unmet.append(f"{kind} detected {d['rate']} < {short['detection']}")
    if (checks.get("missing_share") or 0) > 0.5:
        worst.append(f"missing_share {checks['missing_share']} > 0.5")
    elif (checks.get("missing_share") or 0) > 0.2:
        unmet.append(f"missing_share {checks['missing_share']} > 0.2")
    if worst:
        return UNRELIABLE, worst + unmet
    return (DOUBTFUL, unmet) if unmet else (RELIABLE, [])
