"""A study's grid, pure: the axes that vary (seed, model profile, run parameters), parsed from
`name=v1,v2,...` specs, and their cartesian product in a stable order (mesa's batch_run: every
combination of parameters × seeds). No ORM here: values stay strings until the run configuration
checks them against the Run's fields.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

SEED = "seed"
PROFILE = "profile"
MAX_RUNS = 1000  # a typo like seeds=10000 should be an error, not ten thousand runs


class GridError(ValueError):
    """A malformed axis; the message names it."""


@dataclass(frozen=True)
class Cell:
    """One run of the grid: its axis values (seed included) in axis order."""

    values: tuple[tuple[str, str], ...]

    @property
    def seed(self) -> int:
        return int(dict(self.values)[SEED])

    @property
    def without_seed(self) -> tuple[tuple[str, str], ...]:
        """What the run is a replicate of: the cell's values except the seed."""
        return tuple((k, v) for k, v in self.values if k != SEED)

    def as_dict(self) -> dict[str, str]:
        return dict(self.values)


def parse_vary(specs: list[str]) -> dict[str, list[str]]:
    """["seed=1,2,3", "profile=offline,local"] -> {"seed": ["1","2","3"], "profile": [...]}, in the order
    given. `seeds=N` (a count) is seed=1..N."""
    axes: dict[str, list[str]] = {}
    for spec in specs:
        name, sep, raw = spec.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name:
            raise GridError(f"--vary {spec!r}: write NAME=V1,V2,... (e.g. seed=1,2,3)")
        values = [v.strip() for v in raw.split(",")]
        if not raw.strip() or any(v == "" for v in values):
            raise GridError(f"--vary {spec!r}: give one or more comma-separated values, none empty")
        if name == "seeds":
            name, values = SEED, seed_count(values, spec)
        if name in axes:
            raise GridError(f"--vary {name} is given twice; list all its values in one --vary")
        if len(set(values)) != len(values):
            raise GridError(f"--vary {spec!r}: a value is repeated")
        axes[name] = values
    return axes


def seed_count(values: list[str], spec: str) -> list[str]:
    if len(values) != 1 or not values[0].isdigit() or int(values[0]) < 1:
        raise GridError(f"--vary {spec!r}: seeds=N takes one count of at least 1 (or write seed=1,2,3)")
    return [str(n) for n in range(1, int(values[0]) + 1)]


def with_seed(axes: dict[str, list[str]], base_seed: int) -> dict[str, list[str]]:
    """Every study has a seed axis (so every row of the results names its seed): the base seed
    alone when none varies. The seed axis goes last, so replicates of a cell sit together."""
    seeds = axes.get(SEED, [str(base_seed)])
    for s in seeds:
        try:
            int(s)
        except ValueError:
            raise GridError(f"seed {s!r} is not a whole number") from None
    rest = {k: v for k, v in axes.items() if k != SEED}
    return {**rest, SEED: seeds}


def expand(axes: dict[str, list[str]]) -> list[Cell]:
    """The cartesian product, first axis slowest: one Cell per run."""
    total = 1
    for values in axes.values():
        total *= len(values)
    if total > MAX_RUNS:
        raise GridError(f"the grid has {total} runs; at most {MAX_RUNS} per study")
    names = list(axes)
    return [Cell(tuple(zip(names, combo))) for combo in itertools.product(*axes.values())]


def cell_label(values) -> str:
    """'profile=offline, hot_memory_limit=30' for a cell without its seed ('all runs' if nothing varies)."""
    pairs = values.items() if isinstance(values, dict) else values
    return ", ".join(f"{k}={v}" for k, v in pairs if k != SEED) or "all runs"
