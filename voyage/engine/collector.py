"""The cyclic garbage collector while ticks run: collected less often.

A tick allocates millions of containers (rows, prompts, dicts of a situation), and nearly all of them
are freed by reference counting within the tick. At Python's default thresholds (700, 10, 10) the
collector still looks at the young ones every 700 allocations, and those that live through a tick
(the memory rows, the writer's lists) are promoted, until full collections walk the whole heap:
Django, the loaded world, every agent's memory. `bench concurrency` at 2,048 agents spent 2.9 s of
lock-step's 34.6 s of CPU in the collector over 12 ticks, 4.9 s of out of order's 52.3 s (gen 2:
14 and 12 collections, 2.3 and 3.5 s). At (10000, 10, 10) it spent 0.7 and 1.1 s, and `bench scale`'s
2,048-agent run peaked at 294.0 MB of RSS, as before (docs/out-of-order.md). The cycles a tick does
make are found all the same, a few times a tick instead of hundreds. The middle generation is collected
every 50 young collections, not 10: what lives through a young collection mostly dies within the tick
(prompts whose answers are out, rows not yet committed), before gen 1 is walked again. Out of order
holds more of it at once, and its collections of gen 1 had cost 0.42 s against lock-step's 0.12 at
2,048 agents over 12 ticks; at 50, 0.14 and 0.07 s, with the same peak RSS (docs/out-of-order.md).

The thresholds are the process's: `collecting_less` sets them for the ticks of an `advance` and puts
back what it found when the last of those running in the process is done (a fork made from a web
request runs its ticks in the web process, beside its other threads).
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager

WHILE_TICKING = (10_000, 50, 10)  # gen 0 every 10,000 net allocations; gen 1 every 50 of those; gen 2 as by default

_lock = threading.Lock()
_inside = 0  # the `collecting_less` blocks under way in this process
_before: tuple[int, ...] = ()  # the thresholds the first of them found


@contextmanager
def collecting_less():
    """The collector at WHILE_TICKING for the block; the thresholds found before, after it (once no
    other such block of the process's threads is under way)."""
    global _inside, _before
    with _lock:
        if _inside == 0:
            _before = gc.get_threshold()
            gc.set_threshold(*WHILE_TICKING)
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0:
                gc.set_threshold(*_before)
