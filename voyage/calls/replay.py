"""Replay: answers come from another run's recorded calls instead of a model.

A call is matched by (tick, agent persona key, purpose); where one run made several calls with the
same key they are handed out in the order they were recorded. A failed call replays as the same
failure, so the engine takes the same path and the transcript comes out identical. A request with
no recorded answer raises ReplayMissing, naming what is missing: the run stops rather than
inventing an answer. The one exception is the memory jobs' calls (compaction, era, dream): they
never change the transcript, and when a job runs decides how many it makes (the recorded run's
jobs may have run on a memory worker ticks later, over more rows), so one the recording lacks is a
failed call, recorded as such, and the run goes on.

The recorded rows are read a day at a time, on the caller's thread (the engine's), never from
async code.
"""
from __future__ import annotations

from collections import defaultdict, deque

from voyage.gateway.base import COMPACTION, DREAM, ERA, Gateway, ModelAnswer, ModelRequest
from voyage.models import LLMCall
from world.time import TICKS_PER_DAY


MEMORY_JOB_PURPOSES = (COMPACTION, ERA, DREAM)


class ReplayMissing(LookupError):
    """The recorded run has no answer for a call the replay needs."""


class ReplayGateway(Gateway):
    name = "replay"
    answers_at_once = True

    def __init__(self, source_run_id: int, window: int = TICKS_PER_DAY):
        self.source_run_id = source_run_id
        self.window = window
        self._loaded: set[int] = set()  # which windows (tick // window) are in memory
        self._answers: dict[tuple[int, str | None, str], deque[ModelAnswer]] = defaultdict(deque)

    def complete(self, request: ModelRequest) -> ModelAnswer:
        self._load(request.tick)
        key = (request.tick, request.agent_key, request.purpose)
        queue = self._answers.get(key)
        if not queue and request.purpose in MEMORY_JOB_PURPOSES:
            return ModelAnswer(text=None, error=f"replay: run {self.source_run_id} recorded no such call")
        if not queue:
            who = f"agent {request.agent_key}" if request.agent_key else "no agent (a shared call)"
            raise ReplayMissing(f"replay of run {self.source_run_id}: no recorded {request.purpose!r} answer for "
                                f"{who} at tick {request.tick} — the recorded run made no such call, or fewer of them")
        return queue.popleft()

    def complete_many(self, requests: list[ModelRequest]) -> list[ModelAnswer]:
        return [self.complete(r) for r in requests]

    def _load(self, tick: int) -> None:
        index = tick // self.window
        if index in self._loaded:
            return
        self._loaded.add(index)
        rows = (LLMCall.objects.filter(run_id=self.source_run_id, tick__gte=index * self.window,
                                       tick__lt=(index + 1) * self.window, abandoned=False)  # a killed attempt's: never used
                .order_by("id")
                .values_list("tick", "agent__persona__key", "purpose", "raw_answer", "answered", "error",
                             "prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens", "profile"))
        for tick_, agent_key, purpose, raw, answered, error, p, c, r, cached, profile in rows.iterator(chunk_size=2000):
            # Tokens are the recorded ones (what the answer took to produce); nothing was paid for it now.
            self._answers[(tick_, agent_key, purpose)].append(ModelAnswer(
                text=raw if answered else None, error=error, prompt_tokens=p, completion_tokens=c,
                reasoning_tokens=r, cached_tokens=cached, attempts=1, cost=0.0, profile=profile))
