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

    def add(self, calls: int, tokens: int, cost: float, failures: int, retries: int) -> None:
        self.calls += calls
        self.tokens += tokens
        self.cost += cost
        self.failures += failures
        self.retries += retries

    def figures(self) -> dict:
        ordered = sorted(self.latencies)
        p50, p95 = percentile(ordered, 50), percentile(ordered, 95)
        return {"calls": self.calls, "tokens": self.tokens, "cost": self.cost, "failures": self.failures,
                "retries": self.retries, "p50_ms": p50, "p95_ms": p95,
                # as the tables show them (cheaper than a template filter in a loop of hundreds)
                "cost_shown": f"{self.cost:.4f}", "p50_shown": f"{p50:.0f}", "p95_shown": f"{p95:.0f}"}


def usage_tables(groups, latencies, names: dict | None = None) -> dict:
    """groups: (purpose, agent, calls, tokens, cost, failures, retries), one row per purpose and
    agent (agent None for the ship's own calls, such as the bulletin); latencies: (purpose, agent,
    latency_ms), one per call; names: agent -> the name the table shows. Returns the run's total
    and the figures by purpose and by agent."""
    total, by_purpose, by_agent = Usage(), {}, {}
    for purpose, agent, *figures in groups:
        for usage in (total, by_purpose.setdefault(purpose, Usage()), by_agent.setdefault(agent, Usage())):
            usage.add(*figures)
    everything = total.latencies  # one pass over every call, appending to plain lists: the hot loop
    of_purpose = {purpose: usage.latencies for purpose, usage in by_purpose.items()}
    of_agent = {agent: usage.latencies for agent, usage in by_agent.items()}
    for purpose, agent, latency in latencies:
        if purpose not in of_purpose or agent not in of_agent:
            continue  # a call committed between the two reads (a concurrent writer's, on PostgreSQL): the next load has it
        everything.append(latency)
        of_purpose[purpose].append(latency)
        of_agent[agent].append(latency)
    names = names or {}
    shown = {(SHIP if agent is None else names.get(agent, agent)): usage for agent, usage in by_agent.items()}
    return {"total": total.figures(), "by_purpose": {k: by_purpose[k].figures() for k in sorted(by_purpose)},
            "by_agent": {k: shown[k].figures() for k in sorted(shown)}}


SHIP = "(the ship)"
