"""Reflections (seed 003): each carries the ids of its evidence — the rows its prompt showed — and
depth = max(evidence depth) + 1; its importance is scored by the model.

The evidence is the hot window as the prompt showed it. Rows buffered in the current tick have no
id yet: the reflection keeps a reference to them and TickWriter.commit fills in their ids once the
tick's rows are inserted, so the evidence is exact."""
from __future__ import annotations

from memories.identity import identity_text
from memories.writing import IMPORTANCE, messages
from voyage.gateway.base import IMPORTANCE as IMPORTANCE_PURPOSE, ModelRequest, answered
from voyage.gateway.hints import RowsHints
from voyage.models import LLMCall

DEFAULT_IMPORTANCE = 6


def depth_of(evidence) -> int:
    return max((h.depth for h in evidence), default=0) + 1


def score_importance(world, w, gateway, written) -> list[int]:
    """One batched IMPORTANCE call per reflection text; an unusable answer scores the default."""
    return answered(scoring(world, w, written), gateway)


def scoring(world, w, written):
    """`score_importance` as steps (voyage.gateway.base.answered)."""
    requests = [ModelRequest(purpose=IMPORTANCE_PURPOSE, messages=messages(identity_text(a, world), IMPORTANCE, [text]),
                             tick=w.tick, agent_id=a.id, agent_key=a.persona.key,
                             hints=RowsHints(rows=((w.tick, "reflection", 0, text),)))
                for a, text in written]
    answers = (yield requests) if requests else []
    scores = []
    for request, answer in zip(requests, answers):
        score = parse_importance(answer.text)
        w.call(request, answer, LLMCall.OK if score is not None else LLMCall.ERROR)
        scores.append(score if score is not None else DEFAULT_IMPORTANCE)
    return scores


def parse_importance(text: str | None) -> int | None:
    digits = "".join(ch if ch.isdigit() else " " for ch in (text or "")).split()
    if not digits:
        return None
    return max(1, min(10, int(digits[0])))


def remember(w, agent, text: str, importance: int, evidence) -> object:
    row = w.remember(agent, "reflection", text, importance=importance, depth=depth_of(evidence))
    # ids now where known; buffered rows are resolved at commit (TickWriter.commit)
    row.evidence_rows = [h.row if h.row is not None else h.row_id for h in evidence]
    row.evidence = [h.row_id for h in evidence if h.row_id is not None]
    return row
