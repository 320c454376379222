"""Prompts for the memory calls (compaction, era folding, dreams, diary, trust, importance).

Every one of them is built from the agent's identity as far as its rung reveals it and from its
OWN rows — never another agent's row, never words a rule withheld from it — so nothing it was not
allowed to perceive can reach a summary, a dream, its diary or its trust ledger.
"""
from __future__ import annotations

from world.rules.ladder import OWN_NAME, knows
from world.time import sim_clock

SUMMARISE = (
    "Summarise the memories below, your own, in a compact paragraph (at most 80 words), first person: "
    "where you went, whom you met and what they said, what you did and thought, what still worries you. "
    "Keep names, places and any words you were asked to remember. Invent nothing."
)
FOLD_ERA = (
    "Below are summaries of earlier periods of your own past, oldest first. Fold them into one summary of "
    "that whole era (at most 100 words), first person, keeping what still matters. Invent nothing."
)
DREAM = (
    "You are asleep. Dream: write a third-person narrative of your recent past, from the memories below, in "
    "three parts. Answer with one JSON object with the keys \"identity\" (who you believe you are and what you "
    "want), \"places\" (the rooms you know) and \"people\" (whom you trust or suspect, and why)."
)
DIARY = (
    "Night has fallen. Write today's entry in your diary, first person, from your memories of the day below. "
    "Answer with one JSON object with the keys \"mood\" (one or two words) and \"entry\" (at most 80 words)."
)
TRUST = (
    "Think carefully about each person below and what you have seen of them, from your own memories only. "
    "Answer with one JSON object whose keys are their names and whose values are objects with \"score\" "
    "(-1 to 1), \"label\" (ally, rival, suspect, spouse, acquaintance, ...), \"emotional_tone\" and "
    "\"rationale\" (one sentence)."
)
IMPORTANCE = (
    "On a scale of 1 (routine) to 10 (pivotal), how much does this thought of yours matter to you? "
    "Answer with the number only."
)


def subject_of(agent, world=None) -> str:
    """How a memory call names the agent: by name only once its rung knows its name. `world` is the
    tick's RunWorld when there is one; a job reads the scenario's rungs."""
    rungs = world.rungs if world is not None else agent.run.scenario.rung_specs()
    return agent.persona.display_name if knows(rungs, agent.rung, OWN_NAME) else ""


ROW = ("id", "tick", "kind", "importance", "text")  # a memory job's rows, read by name (values_list(named=True))


def hint_rows(rows) -> tuple:
    """The rows as the offline model's hints carry them: (tick, kind, importance, text) each."""
    return tuple((r.tick, r.kind, r.importance, r.text) for r in rows)


def row_line(tick: int, text: str) -> str:
    return f"[{sim_clock(tick)}] {text}"


def messages(identity: str, instruction: str, lines: list[str]) -> list[dict]:
    return [{"role": "system", "content": identity + "\n\n" + instruction},
            {"role": "user", "content": "\n".join(lines) or "(nothing yet)"}]
