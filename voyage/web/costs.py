"""Model usage as the overview shows it: totals, latency percentiles and the projected cost of
the rest of a run. Pure: rows of numbers in, figures out."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from world.time import NIGHTFALL, TICKS_PER_DAY

DAYTIME_TICKS = NIGHTFALL + 1  # ticks 0..NIGHTFALL of a day; the rest are overnight (world.time.is_overnight)


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of values sorted ascending (0 for none)."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def active_ticks(n: int) -> int:
    """How many of ticks 0..n-1 are daytime ticks, the ones that make model calls."""
    return (n // TICKS_PER_DAY) * DAYTIME_TICKS + min(n % TICKS_PER_DAY, DAYTIME_TICKS)


def projected_rest(cost_so_far: float, tick: int, target: int) -> float | None:
    """Cost of the ticks still to run, at the cost per daytime tick so far (night ticks make no
    action calls); None before the first daytime tick has run."""
    done = active_ticks(tick)
    if done == 0:
        return None
    return cost_so_far / done * (active_ticks(max(target, tick)) - done)


@dataclass
class Usage:
    calls: int = 0
    tokens: int = 0
    cost: float = 0.0
    failures: int = 0  # no answer after every retry, or an answer that was an ACTION_FAIL
    retries: int = 0
    latencies: list[float] = field(default_factory=list)

    def add(self, tokens: int, cost: float, failed: bool, attempts: int, latency_ms: float) -> None:
        self.calls += 1
        self.tokens += tokens
        self.cost += cost
        self.failures += failed
        self.retries += attempts - 1
        self.latencies.append(latency_ms)

    def figures(self) -> dict:
        ordered = sorted(self.latencies)
        return {"calls": self.calls, "tokens": self.tokens, "cost": self.cost, "failures": self.failures,
                "retries": self.retries, "p50_ms": percentile(ordered, 50), "p95_ms": percentile(ordered, 95)}


def usage_by(rows, key_index: int) -> dict[str, dict]:
    """rows: (purpose, agent, tokens, cost, failed, attempts, latency_ms); grouped on one of the first two."""
    groups: dict[str, Usage] = {}
    for row in rows:
        groups.setdefault(row[key_index] or "(ship)", Usage()).add(*row[2:])
    return {key: groups[key].figures() for key in sorted(groups)}
