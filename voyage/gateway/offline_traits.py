"""The offline policy's personality: a trait vector per persona, seeded from its persona key alone (the
same agent has the same traits in every run, at every tick), and the answer it gives to an item that
measures one of those traits, with noise. Scripted, not a model: it lets the validity pipeline and its
statistics run with no model, and lets a test plant traits and recover them.

The generating model, per item: z = LOADING * theta[domain] + sqrt(1 - LOADING**2) * e, e ~ N(0, 1) drawn
from the call's seeded stream; the answer is the scale's middle plus SPREAD * (its half-width) * z,
rounded and held to the scale, then reversed for a reverse-keyed item. Because every item of a domain
is the same function of theta, the alpha this implies can be computed exactly (tests do)."""
from __future__ import annotations

import math
import random

DOMAINS = ("N", "E", "O", "A", "C")
LOADING = 0.6
SPREAD = 0.6  # of the scale's half-width per standard deviation of z


def trait_vector(persona_key: str) -> dict[str, float]:
    r = random.Random(f"offline-traits:{persona_key}")
    return {d: r.gauss(0.0, 1.0) for d in DOMAINS}


def trait_answer(r: random.Random, theta: float, key: int, low: int, high: int) -> int:
    z = LOADING * theta + math.sqrt(1 - LOADING ** 2) * r.gauss(0.0, 1.0)
    middle, half = (low + high) / 2, (high - low) / 2
    point = int(min(high, max(low, round(middle + SPREAD * half * z))))
    return point if key > 0 else int(low + high) - point
