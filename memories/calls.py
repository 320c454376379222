"""Recording a model call made outside a tick (by a job, or by a hard compaction before the call)."""
from __future__ import annotations

from voyage.gateway.base import ModelAnswer, ModelRequest
from voyage.gateway.prompts import compress_messages
from voyage.models import LLMCall


def call_row(run_id: int, request: ModelRequest, answer: ModelAnswer, outcome: str, detail: str = "") -> LLMCall:
    return LLMCall(
        run_id=run_id, agent_id=request.agent_id, tick=request.tick, purpose=request.purpose,
        prompt_z=compress_messages(request.messages), raw_answer=answer.text or "", outcome=outcome,
        detail=detail or answer.error, prompt_tokens=answer.prompt_tokens, completion_tokens=answer.completion_tokens,
        reasoning_tokens=answer.reasoning_tokens, cached_tokens=answer.cached_tokens, latency_ms=answer.latency_ms,
        attempts=answer.attempts, cost=answer.cost,
    )
