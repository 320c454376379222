"""The studies' measures by name: each is a function of a run's tables and a day, declared with
`@measure` where it is written (voyage/studies/measures.py, health_measures.py), so a new measure is
a new function, never an edit of the code that computes a results table."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Measure:
    name: str
    func: Callable
    doc: str
    per: str = "day"
    scale: bool = False  # ordered steps, not evenly spaced (a rating item): compared by Cliff's delta, not d


REGISTRY: dict[str, Measure] = {}


def measure(name: str, doc: str, per: str = "day", scale: bool = False):
    def register(func):
        if name in REGISTRY:
            raise ValueError(f"measure {name!r} is declared twice")
        REGISTRY[name] = Measure(name, func, doc, per, scale)
        return func
    return register
