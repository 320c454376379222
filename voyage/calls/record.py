"""Recording a model call: one LLMCall row per call, whoever made it (a tick, a hard compaction
before an action, a memory job), with its exact prompt (compressed), the answer or why there was
none, and what it cost. Replay reads these rows back, so a call that failed replays as a failure."""
from __future__ import annotations

from voyage.gateway.base import ModelAnswer, ModelRequest
from voyage.gateway.prompts import compress_messages
from voyage.models import LLMCall


def call_record(run_id: int, request: ModelRequest, answer: ModelAnswer, outcome: str, detail: str = "", *,
                prompt_z: bytes | None = None):
    """The LLMCall row for one call, unsaved (a tick inserts its calls with the tick). `prompt_z`: given
    by a caller that compresses the prompt later itself — out of order, TickWriter.call passes b"" and
    the tick's `write` sets the compressed prompt before the row is inserted."""
    return LLMCall(
        run_id=run_id, agent_id=request.agent_id, tick=request.tick, purpose=request.purpose,
        prompt_z=compress_messages(request.messages) if prompt_z is None else prompt_z,
        raw_answer=answer.text or "", outcome=outcome,
        answered=not answer.failed, error=answer.error, detail=detail or answer.error,
        prompt_tokens=answer.prompt_tokens, completion_tokens=answer.completion_tokens,
        reasoning_tokens=answer.reasoning_tokens, cached_tokens=answer.cached_tokens, latency_ms=answer.latency_ms,
        attempts=answer.attempts, cost=answer.cost, recalled=list(request.recalled),
        profile=answer.profile,
    )
