"""How long a run's model calls were in flight: a gateway wrapped around another (the engine never
knows which one it talks to), as concordia composes its profiling wrappers around a model.

A call is in flight from the moment the engine hands it to the gateway until its answer is
available to the engine:
- `start(request)`: from the call to `start` until the returned future holds the answer (its done
  callback, on the gateway's own thread for the OpenAI client); the offline policy and replay
  answer inside `start`, so theirs is the time they took;
- `complete(request)`: the time `complete` took;
- `complete_many(requests)`: each call of the batch for the whole batch, whose answers the engine
  gets together.
Waiting for one of the profile's concurrency slots and retries (with their backoff) count: the
agent waits through them all the same.

`in_flight_s` sums those seconds over every call (call-seconds: 33 calls of 1 s at once are 33);
`busy_s` is the wall time during which at least one call was in flight. `run_voyage` reports
in_flight_share = in_flight_s / (wall seconds × agents), the share of the agents' time that had a
call out, and no_call_in_flight_share = 1 - busy_s / wall seconds (docs/out-of-order.md).
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import Future

from voyage.gateway.base import Gateway, ModelAnswer, ModelRequest


class InFlightMeter(Gateway):
    def __init__(self, inner: Gateway, clock=time.perf_counter):
        self.inner = inner
        self.clock = clock
        self.in_flight_s = 0.0
        self.busy_s = 0.0
        self.calls = 0
        self._open = 0
        self._busy_since = 0.0
        self._lock = threading.Lock()

    # --- what the engine sees: the inner gateway -------------------------------------------
    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def takes_schema(self) -> bool:
        return self.inner.takes_schema

    @property
    def schema_dialect(self) -> str:
        return self.inner.schema_dialect

    @property
    def answers_at_once(self) -> bool:
        return self.inner.answers_at_once

    def action_shape(self, agent_key: str | None) -> tuple[bool, str]:
        return self.inner.action_shape(agent_key)

    def __getattr__(self, attr):  # anything else an implementation offers (its config, ...)
        if attr == "inner":
            raise AttributeError(attr)
        return getattr(self.inner, attr)

    def complete(self, request: ModelRequest) -> ModelAnswer:
        began = self._leave(1)
        try:
            return self.inner.complete(request)
        finally:
            self._land(began, 1)

    def complete_many(self, requests: list[ModelRequest]) -> list[ModelAnswer]:
        if not requests:
            return self.inner.complete_many(requests)
        began = self._leave(len(requests))
        try:
            return self.inner.complete_many(requests)
        finally:
            self._land(began, len(requests))

    def start(self, request: ModelRequest) -> Future:
        began = self._leave(1)
        try:
            future = self.inner.start(request)
        except BaseException:
            self._land(began, 1)
            raise
        future.add_done_callback(lambda _: self._land(began, 1))  # at once if it is already answered
        return future

    def close(self) -> None:
        self.inner.close()

    # --- the clock ---------------------------------------------------------------------------
    def _leave(self, n: int) -> float:
        with self._lock:
            now = self.clock()
            if self._open == 0:
                self._busy_since = now
            self._open += n
            return now

    def _land(self, began: float, n: int) -> None:
        with self._lock:
            now = self.clock()
            self.in_flight_s += n * (now - began)
            self.calls += n
            self._open -= n
            if self._open == 0:
                self.busy_s += now - self._busy_since

    def figures(self, wall_s: float, agents: int) -> dict:
        """in_flight_share and no_call_in_flight_share over `wall_s` seconds of a run of `agents`."""
        in_flight = self.in_flight_s / (wall_s * agents) if wall_s > 0 and agents else 0.0
        idle = max(0.0, 1 - self.busy_s / wall_s) if wall_s > 0 else 0.0
        return {"in_flight_share": round(in_flight, 4), "no_call_in_flight_share": round(idle, 4),
                "in_flight_call_s": round(self.in_flight_s, 3)}
