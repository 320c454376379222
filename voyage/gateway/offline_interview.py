"""The offline model's answer to an interview: plainly canned, deterministic, and built only from
what the interview's prompt shows (InterviewHints), so it can say nothing the agent did not have."""
from __future__ import annotations

import random
from dataclasses import dataclass

CANNED = "[offline scripted answer, not a language model]"
OPENERS = ("Let me think.", "Hm. You ask a great deal.", "I am not sure I should say.", "Well.")


@dataclass(frozen=True)
class InterviewHints:
    question: str
    subject: str  # how the prompt names the agent: its name, or "" below the rung that knows it
    clock: str  # as the prompt states the time
    lines: tuple[str, ...]  # its hot window as the prompt shows it, newest first


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def interview(rng: random.Random, h: InterviewHints) -> str:
    remembered = " / ".join(_clip(line, 160) for line in h.lines[:2]) or "nothing at all"
    who = h.subject or "someone who does not know their own name"
    return (f"{CANNED} ({who}, {h.clock}) “{_clip(h.question, 300)}” — {rng.choice(OPENERS)} "
            f"What I remember last: {remembered}")
