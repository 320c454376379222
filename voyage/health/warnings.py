"""Warnings in plain words when a run's health figures pass these thresholds (docs/real-models.md,
"Is the model really playing?"). Pure.

No warning is given on fewer than MIN_ANSWERS answered action calls: a handful of answers cannot
tell a habit from chance. The offline policy is never warned about: it is a script, and says so.
Each warning carries a few of the calls that show it, so a reader can open them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from voyage.health.shares import Verdict

MIN_ANSWERS = 10
EXAMPLE_COPY = 0.5        # half the answers or more are the turn's example, key for key
REPEATERS = 0.5           # half the agents or more each repeat their previous answer...
REPEAT = 0.5              # ...in half their answers or more
MIN_REPEAT_CHANCES = 3    # an agent is judged on at least this many answers with a previous one
FEW_LINES = 0.2           # under a fifth of the dialogue lines said are distinct
MIN_LINES = 10
IGNORED_FIELDS = 0.25     # a quarter of the answers or more set a key their action ignores
ACTION_FAILS = 0.25       # a quarter of the action calls or more end in ACTION_FAIL
UNEVEN = 0.25             # Pielou's evenness under this: about nine turns in ten take one action
SHOWN_CALLS = 5
SCRIPTED = "the offline policy is a script, not a model: these figures describe the script and no warning applies"


@dataclass(frozen=True)
class Warning:
    code: str
    text: str
    calls: tuple[tuple[str, int], ...] = field(default=())  # (agent key, call id) of calls that show it


def _shown(verdicts: list[Verdict]) -> tuple[tuple[str, int], ...]:
    return tuple((v.call.agent, v.call.id) for v in verdicts[:SHOWN_CALLS])


def _pct(share: float) -> str:
    return f"{share:.0%}"


def warnings_for(verdicts: list[Verdict], run: dict, by_agent: dict[str, dict]) -> list[Warning]:
    """The warnings a run's figures call for: `run` is its summary, `by_agent` each agent's."""
    if (run["answered"] or 0) < MIN_ANSWERS:
        return []
    out = []
    copy = run["example_copy_share"]
    if copy is not None and copy >= EXAMPLE_COPY:
        out.append(Warning("example_copy", f"most answers copy the example answer ({_pct(copy)} of "
                                           f"{run['answered']}, key for key): the model's choices are not its own",
                           _shown([v for v in verdicts if v.copied])))
    judged = {a: h for a, h in by_agent.items() if h["repeat_chances"] >= MIN_REPEAT_CHANCES}
    repeaters = sorted(a for a, h in judged.items() if (h["repeat_share"] or 0) >= REPEAT)
    if judged and len(repeaters) / len(judged) >= REPEATERS:
        out.append(Warning("repeat", f"most agents repeat themselves: {len(repeaters)} of {len(judged)} give the same "
                                     f"action, target and words as their previous answer at least half the time",
                           _shown([v for v in verdicts if v.repeated and v.call.agent in repeaters])))
    lines = [v for v in verdicts if v.dialogue]
    distinct = run["distinct_dialogue_share"]
    if len(lines) >= MIN_LINES and distinct is not None and distinct < FEW_LINES:
        out.append(Warning("few_lines", f"the same few lines are said over and over: {len(set(v.dialogue for v in lines))} "
                                        f"different lines in {len(lines)} said",
                           _shown(lines)))
    ignored = run["ignored_field_share"]
    if ignored is not None and ignored >= IGNORED_FIELDS:
        out.append(Warning("ignored_fields", f"many answers fill in what their action does not use ({_pct(ignored)} of "
                                             f"{run['answered']}: a volume or words with an action other than "
                                             f"communicate): the model does not follow the action contract closely. "
                                             f"The agents lose nothing by it: those fields are set aside, never spoken",
                           _shown([v for v in verdicts if v.ignored])))
    fails = run["action_fail_share"]
    if fails is not None and fails >= ACTION_FAILS:
        top = next(iter(run["action_fail_reasons"]), "")
        out.append(Warning("action_fail", f"many answers end in ACTION_FAIL ({_pct(fails)} of the action calls): the "
                                          f"model does not keep the action contract; most often: {top}",
                           _shown([v for v in verdicts if v.failed])))
    even = run["action_evenness"]
    if even is not None and even < UNEVEN and run["actions"]:
        top, n = next(iter(run["actions"].items()))
        out.append(Warning("uneven", f"almost every answer is the same action ({top}, {_pct(n / sum(run['actions'].values()))}"
                                     f" of the answers): the other allowed actions go unused",
                           _shown([v for v in verdicts if v.action_type == top])))
    return out
