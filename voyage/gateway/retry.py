"""When to try a model call again, and how long to wait first. Pure.

Exponential backoff with jitter (so 33 agents hit by the same outage do not come back in lockstep),
except where the server said how long to wait (429 with Retry-After): then that is honoured.
The jitter comes from the gateway's own RNG, not the run's: it changes timing, never an answer.
"""
from __future__ import annotations

import random
from email.utils import parsedate_to_datetime
from datetime import datetime, timezone

MAX_RETRY_AFTER_S = 120.0  # a server asking for longer than this is treated as asking for this


def backoff_delay(attempt: int, *, base_s: float, cap_s: float, rng: random.Random,
                  retry_after_s: float | None = None) -> float:
    """Seconds to wait after failed attempt number `attempt` (1-based)."""
    if retry_after_s is not None:
        return min(max(retry_after_s, 0.0), MAX_RETRY_AFTER_S) + rng.uniform(0, base_s / 10)
    ceiling = min(cap_s, base_s * 2 ** (attempt - 1))
    return rng.uniform(ceiling / 2, ceiling)


def parse_retry_after(headers) -> float | None:
    """Seconds from `retry-after-ms`, or `Retry-After` as seconds or an HTTP date; None if absent or bad."""
    if headers is None:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return float(raw_ms) / 1000
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return float(raw)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
