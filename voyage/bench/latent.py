"""A gateway for benchmarks: the answers of another gateway (the offline policy), each delivered
after a latency drawn as `bench ahead` draws it (voyage.bench.ahead.latency: a lognormal seeded by
the run's seed, the call's agent, tick and purpose, and its number among that agent's calls of the
tick), so a run on it meets the latencies whose ceiling `bench ahead` computes for the same trace.
Memory jobs' calls (compaction, eras, dreams) come back at once: the ceiling has no place for them.

However many calls are out, each comes back after its own latency, as from an endpoint that takes
them all at once (the ceiling's): one clock thread hands each answer over when it is due (`Clock`).
A pool of sleeping threads would cap the calls in flight at its size and queue the rest, adding a
wait the ceiling does not have (at 2,048 agents, a pool of 512 did).
"""
from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections import Counter
from concurrent.futures import Future

from voyage.bench.ahead import latency
from voyage.gateway.base import ACTION, COMPACTION, DREAM, ERA, Gateway, ModelAnswer, ModelRequest


class Clock:
    """One thread that completes each future it is given at its time (time.monotonic), in time order."""

    def __init__(self, name: str = "latent clock"):
        self._due: list = []  # heap of (when, number, future, answer)
        self._numbers = itertools.count()  # ties of `when` in the order given
        self._changed = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def after(self, seconds: float, answer) -> Future:
        """A future whose result is `answer`, `seconds` from now (`future.due`, on time.monotonic)."""
        future = Future()
        future.set_running_or_notify_cancel()
        future.due = time.monotonic() + seconds
        if seconds <= 0:
            future.set_result(answer)
            return future
        entry = (future.due, next(self._numbers), future, answer)
        with self._changed:
            if self._closed:
                raise RuntimeError("the latent gateway is closed")
            heapq.heappush(self._due, entry)
            if self._due[0] is entry:  # due before whatever the thread waits for: it waits less
                self._changed.notify()
        return future

    def close(self) -> None:
        """Stop; the answers not yet due are never given: their futures fail, saying so."""
        with self._changed:
            self._closed = True
            pending, self._due = self._due, []
            self._changed.notify()
        for _, _, future, _ in pending:
            future.set_exception(RuntimeError("the latent gateway closed before the answer was due"))

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._closed and (not self._due or self._due[0][0] > time.monotonic()):
                    self._changed.wait(self._due[0][0] - time.monotonic() if self._due else None)
                if self._closed:
                    return
                now, ready = time.monotonic(), []
                while self._due and self._due[0][0] <= now:
                    ready.append(heapq.heappop(self._due))
            for _, _, future, answer in ready:  # outside the lock: a future's callbacks may start calls
                future.set_result(answer)


class Latent(Gateway):
    def __init__(self, inner: Gateway, seed: int, median_s: float, sigma: float):
        self.inner, self.seed, self.median_s, self.sigma = inner, seed, median_s, sigma
        self.name = f"{inner.name} (lognormal latency)"
        self.takes_schema, self.schema_dialect = inner.takes_schema, inner.schema_dialect
        self._clock = Clock()
        self._calls: Counter = Counter()  # (agent, tick) -> its calls of that tick other than its action
        self._lock = threading.Lock()

    def action_shape(self, agent_key):
        return self.inner.action_shape(agent_key)

    def delay(self, request: ModelRequest) -> float:
        if request.purpose in (COMPACTION, ERA, DREAM):
            return 0.0
        n = 0
        if request.purpose != ACTION:
            with self._lock:
                n = self._calls[(request.agent_key, request.tick)]
                self._calls[(request.agent_key, request.tick)] += 1
        return latency(self.seed, request.agent_key, request.tick, request.purpose, n, self.median_s, self.sigma)

    def start(self, request: ModelRequest) -> Future:
        answer = self.inner.complete(request)  # the policy answers from the request alone: at once, here
        delay = self.delay(request)
        answer.latency_ms = round(delay * 1000, 1)
        return self._clock.after(delay, answer)

    def complete(self, request: ModelRequest) -> ModelAnswer:
        return self.start(request).result()

    def complete_many(self, requests: list[ModelRequest]) -> list[ModelAnswer]:
        return [f.result() for f in [self.start(r) for r in requests]]

    def close(self) -> None:
        self._clock.close()
        self.inner.close()
