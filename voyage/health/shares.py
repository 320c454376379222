"""Model health over a set of recorded action calls. Pure: plain ActionCall records in, figures out.

Per call (`verdicts`, over a run's calls in the order they were made, so "previous" is well defined):
- copied: the answer is the turn's example answer, key for key;
- repeated: the answer chose the same action, target and dialogue as the agent's previous answer
  (None for an agent's first answer, which has nothing to repeat);
- failed: the call ended in ACTION_FAIL, with its reason;
- ignored: the answer set a key its action does not use (a volume or dialogue on anything but
  communicate), which the engine sets aside at no cost to the agent.

Over any group of verdicts (`summarise`: the run, an agent, a day):
- example_copy_share: copied / answered action calls (what `bench realmodel` calls example_share);
- repeat_share: repeated / answers that had a previous answer to repeat;
- distinct_dialogue_share: distinct dialogue lines / dialogue lines said (non-empty dialogue);
- ignored_field_share: answers that set a key their action ignores / answered action calls;
- action_fail_share: ACTION_FAIL / action calls, and action_fail_reasons: each reason's share of them;
- action_evenness: Pielou's evenness of the action types chosen, over the actions the turns allowed:
  the Shannon entropy of the choices divided by its largest possible value, ln(k) for k allowed
  actions. 1 when every allowed action is chosen equally often, 0 when one action takes every turn.
  Pielou's J rather than the top action's share (Berger-Parker) because it uses every action's
  share, and rather than raw entropy because it reads the same whether a rung allows three actions
  or five. None when fewer than two actions were allowed (nothing to spread over).

A share with nothing to divide by is None.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable

from voyage.health.answers import ACTION_FAIL, ActionCall, fills_ignored, parsed


@dataclass(frozen=True)
class Verdict:
    call: ActionCall
    action_type: str | None  # None: no answer, or not a JSON object
    dialogue: str
    copied: bool
    repeated: bool | None
    failed: bool
    ignored: bool = False


def choice_of(answer: dict | None) -> tuple | None:
    """What an answer chose, for telling a repeat: action, target and dialogue."""
    if answer is None:
        return None
    return (answer.get("action_type"), answer.get("target_character"), _dialogue(answer))


def _dialogue(answer: dict | None) -> str:
    said = answer.get("dialogue") if answer else None
    return said.strip() if isinstance(said, str) else ""


def verdicts(calls: Iterable[ActionCall]) -> list[Verdict]:
    """One verdict per call, in the order given (the order the calls were made)."""
    previous: dict[str, tuple] = {}  # agent -> its last readable answer's choice
    out = []
    for call in calls:
        answer = parsed(call.raw) if call.answered else None
        choice = choice_of(answer)
        repeated = None
        if choice is not None:
            before = previous.get(call.agent)
            repeated = None if before is None else before == choice
            previous[call.agent] = choice
        kind = answer.get("action_type") if answer else None
        out.append(Verdict(call, kind if isinstance(kind, str) else None, _dialogue(answer),
                           copied=answer is not None and call.example is not None and answer == call.example,
                           repeated=repeated, failed=call.outcome == ACTION_FAIL, ignored=fills_ignored(answer)))
    return out


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def evenness(chosen: Counter, allowed: set[str]) -> float | None:
    """Pielou's J of the choices over the allowed actions (see the module's doc)."""
    if len(allowed) < 2:
        return None
    counts = [chosen[a] for a in allowed if chosen[a]]
    total = sum(counts)
    if not total:
        return None
    entropy = -sum(n / total * math.log(n / total) for n in counts)
    return round(entropy / math.log(len(allowed)), 4)


def summarise(group: list[Verdict], shape: Callable[[str], str] = lambda reason: reason) -> dict:
    """The health figures of a group of verdicts; `shape` groups ACTION_FAIL reasons (reason_shape)."""
    answered = [v for v in group if v.call.answered]
    had_previous = [v for v in group if v.repeated is not None]
    said = [v.dialogue for v in group if v.dialogue]
    failed = [v for v in group if v.failed]
    reasons = Counter(shape(v.call.detail) for v in failed)
    allowed = {a for v in group for a in v.call.allowed}
    chosen = Counter(v.action_type for v in group if v.action_type is not None)
    return {
        "action_calls": len(group),
        "answered": len(answered),
        "example_copy_share": _share(sum(v.copied for v in answered), len(answered)),
        "repeat_share": _share(sum(bool(v.repeated) for v in had_previous), len(had_previous)),
        "repeat_chances": len(had_previous),
        "distinct_dialogue_share": _share(len(set(said)), len(said)),
        "ignored_field_share": _share(sum(v.ignored for v in answered), len(answered)),
        "action_fail_share": _share(len(failed), len(group)),
        "action_fail_reasons": {r: _share(n, len(group)) for r, n in sorted(reasons.items(), key=lambda kv: -kv[1])},
        "action_evenness": evenness(Counter({a: n for a, n in chosen.items() if a in allowed}), allowed),
        "actions": dict(sorted(chosen.items(), key=lambda kv: (-kv[1], kv[0]))),
    }


def grouped(verdict_list: list[Verdict], key: Callable[[Verdict], object]) -> dict:
    groups: dict = {}
    for v in verdict_list:
        groups.setdefault(key(v), []).append(v)
    return groups
