"""A gateway for benchmarks: the answers of another gateway (the offline policy), each delivered
after a latency drawn as `bench ahead` draws it (voyage.bench.ahead.latency: a lognormal seeded by
the run's seed, the call's agent, tick and purpose, and its number among that agent's calls of the
tick), so a run on it meets the latencies whose ceiling `bench ahead` computes for the same trace.
Memory jobs' calls (compaction, eras, dreams) come back at once: the ceiling has no place for them.
"""
from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor

from voyage.bench.ahead import latency
from voyage.gateway.base import ACTION, COMPACTION, DREAM, ERA, Gateway, ModelAnswer, ModelRequest


class Latent(Gateway):
    def __init__(self, inner: Gateway, seed: int, median_s: float, sigma: float, workers: int = 512):
        self.inner, self.seed, self.median_s, self.sigma = inner, seed, median_s, sigma
        self.name = f"{inner.name} (lognormal latency)"
        self.takes_schema, self.schema_dialect = inner.takes_schema, inner.schema_dialect
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="latent")
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
        return self._pool.submit(_after, delay, answer)

    def complete(self, request: ModelRequest) -> ModelAnswer:
        return self.start(request).result()

    def complete_many(self, requests: list[ModelRequest]) -> list[ModelAnswer]:
        return [f.result() for f in [self.start(r) for r in requests]]

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self.inner.close()


def _after(seconds: float, answer: ModelAnswer) -> ModelAnswer:
    time.sleep(seconds)
    return answer
