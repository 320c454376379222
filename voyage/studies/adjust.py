"""Many comparisons at once, pure: a study report compares some fifty measures per arm, and at that many
a few p-values fall under 0.05 by chance alone. Every comparison table therefore carries a p-value
adjusted for the number of comparisons in it:

- Holm (1979), the default: controls the family-wise error rate (the chance of even one false finding);
  the step-down form of Bonferroni, never less powerful than it.
- Benjamini-Hochberg (1995), `bh`: controls the false discovery rate (the expected share of false
  findings among those declared).

Comparisons with no p-value (too few runs) are not counted. And each measure belongs to a family, so
the forest plot can group what moved."""
from __future__ import annotations

import dataclasses

import numpy as np

HOLM, BH = "holm", "bh"
METHODS = {HOLM: "Holm (family-wise error rate)", BH: "Benjamini-Hochberg (false discovery rate)"}
FAMILIES = ("ladder", "speech", "trust", "networks", "memory", "surveys", "health", "validity", "believability")
FAMILY_OF = {
    "agents_rung": "ladder", "first_tick_rung": "ladder", "deaths": "ladder",
    "words": "speech", "speech_target_only_share": "speech",
    "trust_mean": "trust", "trust_suspect_share": "trust", "trust_polarisation": "trust",
    "speech_net": "networks", "trust_net": "networks",
    "written": "memory",
    "survey": "surveys",
    "validity": "validity",
    "judge": "believability",
    "action_fail_rate": "health", "calls": "health", "tokens": "health", "cost": "health", "retries": "health",
    "wall_s": "health", "example_copy_share": "health", "repeat_share": "health",
    "distinct_dialogue_share": "health", "ignored_field_share": "health", "action_fail_reasons": "health",
    "action_evenness": "health",
}


def holm(p) -> np.ndarray:
    p = np.asarray(p, float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(stepped, 1.0)
    return out


def benjamini_hochberg(p) -> np.ndarray:
    p = np.asarray(p, float)
    m = len(p)
    order = np.argsort(p, kind="stable")[::-1]  # largest first
    scaled = p[order] * m / (m - np.arange(m))  # p_(i) * m / i, i from m down to 1
    out = np.empty(m)
    out[order] = np.minimum(np.minimum.accumulate(scaled), 1.0)
    return out


def adjust(p, method: str = HOLM) -> np.ndarray:
    if method not in METHODS:
        raise ValueError(f"adjustment {method!r}: one of {', '.join(METHODS)}")
    if not len(p):
        return np.asarray([], float)
    return holm(p) if method == HOLM else benjamini_hochberg(p)


def with_adjusted(comparisons: list, method: str = HOLM) -> list:
    """The comparisons (stats.Comparison) with `p_adjusted` filled over all of them that have a p-value."""
    having = [i for i, c in enumerate(comparisons) if c.p_value is not None]
    adjusted = adjust([comparisons[i].p_value for i in having], method)
    out = list(comparisons)
    for i, value in zip(having, adjusted):
        out[i] = dataclasses.replace(out[i], p_adjusted=float(value))
    return out


def family_of(column: str) -> str:
    name = column
    while name and name not in FAMILY_OF:
        name = name.rpartition("_")[0]
    return FAMILY_OF.get(name, "other")
