"""Auditing a run's prompts: are the prompts it recorded the ones its committed record makes?

A prompt is a function of the committed run and the tick (docs/engine.md, "Every prompt from the
record"). The audit checks it on a seeded sample of a run's recorded calls: it repeats the run from
its recorded answers (the replay gateway) in a scratch run, inside a transaction it rolls back, so
nothing of it stays; at each sampled call's tick it stops and starts again, so the world that builds
that call's prompt is loaded fresh from the rows committed before it — what a resumed process, a
worker's next chunk or a fork would load. Each rebuilt prompt is compared with the recorded one, byte
for byte (calls matched by tick, agent, purpose and their order among those).

Memory jobs' calls (compaction, eras, dreams) are not sampled: when a job runs decides what it is asked
(voyage/calls/replay.py). Audit a run that is not running: on SQLite the scratch run holds the
database's write lock while it runs.
"""
from __future__ import annotations

import json
import random
from collections import Counter

from django.db import transaction

from voyage.calls.replay import MEMORY_JOB_PURPOSES, ReplayMissing
from voyage.engine.runner import advance
from voyage.gateway.base import ACTION
from voyage.models import LLMCall, Run
from voyage.runs.fork import replaying

EXCERPT = 60  # characters of each prompt either side of the first difference


class AuditError(ValueError):
    """The audit cannot be made as asked; the message says why."""


def audit(run: Run, sample: int = 50, seed: int = 0) -> dict:
    """{"run", "audited", "equal", "first_difference"}: `sample` of the run's recorded calls (seeded by
    the run and `seed`), each rebuilt from the committed record as of its tick and compared."""
    if sample < 1:
        raise AuditError(f"--sample must be 1 or more (got {sample})")
    recorded = numbered(calls_of(run))
    keys = sorted(random.Random(f"{run.pk}:{seed}").sample(sorted(recorded), min(sample, len(recorded))))
    with transaction.atomic():
        rebuilt, stopped = rebuild(run, keys)
        transaction.set_rollback(True)  # the scratch run leaves nothing behind
    return verdict(run, keys, recorded, rebuilt, stopped)


def calls_of(run: Run):
    return (LLMCall.objects.filter(run=run, abandoned=False).exclude(purpose__in=MEMORY_JOB_PURPOSES)
            .order_by("id").select_related("agent__persona"))


def numbered(calls) -> dict[tuple, LLMCall]:
    """Calls by (tick, agent key, purpose, n): the n-th of that tick, agent and purpose, in recorded order."""
    seen, out = Counter(), {}
    for call in calls:
        key = (call.tick, call.agent.persona.key if call.agent_id else "", call.purpose)
        out[(*key, seen[key])] = call
        seen[key] += 1
    return out


def rebuild(source: Run, keys: list[tuple]) -> tuple[dict[tuple, LLMCall], str]:
    """The scratch run's calls by key, having stopped and loaded its world afresh at each sampled
    call's tick (an action call's own; others, made while the tick before ran, that one); and why the
    replay stopped early, if it did ("" when it did not)."""
    starts = sorted({tick if purpose == ACTION else max(0, tick - 1) for tick, _, purpose, _ in keys})
    scratch = replaying(source, starts[-1] + 1 if starts else 0, name=f"audit of run {source.pk}")
    stopped = ""
    try:
        for stop in sorted({*starts, *(s + 1 for s in starts)}):
            advance(scratch, stop, memory_inline=True)
    except ReplayMissing as exc:
        stopped = str(exc)
    return numbered(calls_of(scratch)), stopped


def verdict(run: Run, keys, recorded, rebuilt, stopped: str) -> dict:
    equal, first = 0, None
    for key in keys:
        call, again = recorded[key], rebuilt.get(key)
        if again is not None and again.prompt == call.prompt:
            equal += 1
        elif first is None:
            first = difference(call, again, stopped)
    return {"run": run.pk, "audited": len(keys), "equal": equal, "first_difference": first}


def difference(call: LLMCall, again: LLMCall | None, stopped: str) -> dict:
    """The call that differs, its agent, and the two prompts around their first differing character."""
    where = {"call": call.pk, "tick": call.tick, "agent": call.agent.persona.key if call.agent_id else None,
             "purpose": call.purpose}
    if again is None:
        return {**where, "excerpt": stopped or "the rebuilt run made no such call"}
    ours, theirs = prompt_text(call.prompt), prompt_text(again.prompt)
    at = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
    start = max(0, at - EXCERPT)
    return {**where, "at_char": at, "excerpt": {"recorded": ours[start:at + EXCERPT],
                                                "rebuilt": theirs[start:at + EXCERPT]}}


def prompt_text(messages: list[dict]) -> str:
    return json.dumps(messages, ensure_ascii=False)
