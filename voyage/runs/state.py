"""How a run's state reads to a person: a finished run whose memory jobs are still owed is not
simply finished (its summaries and dreams are still being written). Pure."""
from __future__ import annotations


def state_text(state: str, memory_jobs: int) -> str:
    if state == "finished" and memory_jobs:
        return f"finished; {memory_jobs} memory job{'s' if memory_jobs != 1 else ''} still running"
    return state
