"""A progress bar on stderr for the batch runner (quiet when stderr is not a terminal, but for a
line every tenth of the way)."""
from __future__ import annotations

import sys
import time

from world.time import sim_clock


class ProgressBar:
    def __init__(self, start: int, end: int, stream=None, width: int = 30, describe=sim_clock):
        self.start, self.end, self.width = start, end, width
        self.describe = describe  # what the bar says beside the count: the simulated clock by default
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.began = time.perf_counter()
        self._last_draw = 0.0
        self._last_decile = -1

    def __call__(self, tick: int) -> None:
        span = max(1, self.end - self.start)
        done = (tick - self.start) / span
        now = time.perf_counter()
        if self.tty:
            if now - self._last_draw < 0.1 and tick < self.end:
                return
            self._last_draw = now
            filled = int(done * self.width)
            bar = "█" * filled + "·" * (self.width - filled)
            self.stream.write(f"\r{bar} {tick}/{self.end} ticks  {self.describe(tick)}  {now - self.began:5.1f}s")
            if tick >= self.end:
                self.stream.write("\n")
        else:
            decile = int(done * 10)
            if decile > self._last_decile:
                self._last_decile = decile
                self.stream.write(f"{tick}/{self.end} ticks  {self.describe(tick)}  {now - self.began:.1f}s\n")
        self.stream.flush()
