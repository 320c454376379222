"""The interview's prompt, from the agent's mind as it stood at tick T (memories.as_of.MindAt). Pure.

The layout follows the action prompt's seed layout: who it is as its rung then allowed, what it
remembers of earlier times and its last dream; then the time, where it is, whom it knows, older
memories the question brings back, its hot window newest first; the question last."""
from __future__ import annotations

from memories.as_of import MindAt
from memories.context import DREAM_HEADER, HOT_HEADER, RECALL_HEADER, RECALLED_CHARS, SUMMARIES_HEADER
from world.rules.ladder import SETTING, knows
from world.time import part_of_day, sim_clock, time_of_day

INSTRUCTION = ("Someone has stopped you to ask you a question. Answer it in your own voice, in a few sentences "
               "of plain prose (no JSON), from what you know of yourself and remember here and nothing else. "
               "You may be unsure, evasive or mistaken, as you are.")
TRUST_HEADER = "The people you know, and what you make of them:"
QUESTION_HEADER = "They ask you:"


def interview_messages(mind: MindAt, identity: str, question: str, rungs, *, instruction: str = INSTRUCTION,
                       header: str = QUESTION_HEADER) -> list[dict]:
    """`instruction` and `header` let a survey put its questionnaire where the question goes."""
    system = [identity]
    if mind.summaries:
        system.append(SUMMARIES_HEADER + "\n" + "\n".join(f"- {s}" for s in mind.summaries))
    if mind.dream:
        system.append(DREAM_HEADER + "\n" + mind.dream)
    system.append(instruction)
    clock = sim_clock(mind.tick) if knows(rungs, mind.rung, SETTING) else part_of_day(mind.tick)
    user = [f"It is {clock}. You are in the {mind.room_name}."]
    if mind.trust:
        user.append(TRUST_HEADER + "\n" + "\n".join(
            f"- {name}: {label}" + (f" ({tone})" if tone else "") for name, label, tone in mind.trust))
    if mind.recalled:
        user.append(RECALL_HEADER + "\n" + "\n".join(f"[{sim_clock(r.tick)}] {r.text[:RECALLED_CHARS]}"
                                                     for r in mind.recalled))
    lines = [f"[{time_of_day(r.tick)}] {r.text}" for r in reversed(mind.rows)]
    user.append(HOT_HEADER + "\n" + ("\n".join(lines) if lines else "(none)"))
    user.append(header + "\n" + question)
    return [{"role": "system", "content": "\n\n".join(system)}, {"role": "user", "content": "\n\n".join(user)}]
