"""A run's model health from its recorded action calls (LLMCall rows): read after the fact, never
in the tick's hot path. Each prompt is decompressed once to read the turn's example answer and the
actions it allowed.
"""
from __future__ import annotations

import json
import zlib
from functools import partial

from django.db.models import Value

from voyage.gateway.prompts import decompress_raw
from voyage.health.answers import GUIDE_START, ActionCall, allowed_in, example_in, reason_shape
from voyage.health.shares import Verdict, grouped, summarise, verdicts
from voyage.health.warnings import SCRIPTED, warnings_for
from voyage.models import LLMCall, ModelProfile
from world.models import Persona, Prop, Room
from world.time import TICKS_PER_DAY

# What run_voyage's JSON line carries of the run's figures.
LINE_KEYS = ("example_copy_share", "repeat_share", "distinct_dialogue_share", "ignored_field_share",
             "action_fail_share", "action_fail_reasons", "action_evenness")


def action_calls(run_ids, since_id: int = 0) -> dict[int, list[ActionCall]]:
    """run id -> its action calls in the order they were made."""
    rows = (LLMCall.objects.filter(run_id__in=list(run_ids), purpose="action", id__gt=since_id).order_by("id")
            .values_list("id", "run_id", "agent__persona__key", "tick", "answered", "outcome", "detail", "raw_answer",
                         "prompt_z", "profile"))
    out: dict[int, list[ActionCall]] = {}
    for pk, run_id, agent, tick, answered, outcome, detail, raw, blob, profile in rows.iterator(chunk_size=500):
        last = last_message(blob)
        out.setdefault(run_id, []).append(ActionCall(pk, agent or "", tick, answered, outcome, detail, raw,
                                                     example_in(last), allowed_in(last), profile or ""))
    return out


def last_message(blob) -> str:
    """The guide lines closing a stored action prompt ("" for a prompt without them, or one that
    cannot be read back). Only the end of the prompt is decoded from JSON: the guide starts a line of
    the last message, whose string ends the stored list (compact JSON: ...guide..."}])."""
    try:
        data = decompress_raw(bytes(blob))
    except zlib.error:
        return ""
    start, end = data.rfind(GUIDE_START.encode()), data.rfind(b'"}')
    if start < 0 or end < start:
        return ""
    try:
        return json.loads(b'"' + data[start:end] + b'"')
    except ValueError:
        return ""


def name_shape(scenario_id: int):
    """reason_shape with the scenario's names of people, items and rooms (one query for the three)."""
    lists = [model.objects.filter(scenario_id=scenario_id).order_by().annotate(which=Value(n)).values_list("which", "id", field)
             for n, (model, field) in enumerate(((Persona, "display_name"), (Prop, "name"), (Room, "name")))]
    rows = sorted(lists[0].union(*lists[1:], all=True))  # by list, then in id order
    names = [[name for which, _, name in rows if which == n] for n in range(3)]
    return partial(reason_shape, people=names[0], items=names[1], rooms=names[2])


def actions_scripted(run) -> bool:
    """Whether the run's actions came from the offline policy: each action call names the profile
    that answered it (a replayed call, the one it was recorded with); calls recorded before calls
    named one follow the run's profile (a replay's, its source's)."""
    return scripted_by(run, action_profiles(run))


def action_profiles(run) -> set[str]:
    """The names of the profiles that answered the run's action calls ("" for calls naming none)."""
    return set(LLMCall.objects.filter(run=run, purpose="action").order_by().values_list("profile", flat=True)
               .distinct())


def scripted_by(run, profiles: set[str]) -> bool:
    """actions_scripted, given the names action_profiles returns."""
    names = set(profiles) - {""}
    if names:
        return not ModelProfile.objects.filter(name__in=names, kind=ModelProfile.OPENAI).exists()
    while run.replay_of_id:
        run = run.replay_of
    return run.profile is None or run.profile.kind == ModelProfile.OFFLINE


def day_of(tick: int) -> int:
    return tick // TICKS_PER_DAY + 1


def health_of(run, recent: int | None = None) -> dict:
    """The run's figures, each agent's, each day's, the warnings (with calls that show them), and
    whether the actions came from a script. `recent`: only the run's latest so many action calls
    (a page shows those: reading every prompt of a long run takes about half a second a day)."""
    since = 0
    if recent is not None:
        ids = LLMCall.objects.filter(run=run, purpose="action").order_by("-id").values_list("id", flat=True)
        since = next(iter(ids[recent:recent + 1]), 0)
    return health_of_calls(run, action_calls([run.pk], since_id=since).get(run.pk, []), partial=since > 0)


def health_of_calls(run, calls: list[ActionCall], partial: bool = False, scripted: bool | None = None,
                    shape=None) -> dict:
    """health_of, from action calls already read (a page keeps them between loads: web/health.py);
    `scripted` (actions_scripted) and `shape` (name_shape), when the caller has them already."""
    health = health_from(verdicts(calls), shape or name_shape(run.scenario_id),
                         actions_scripted(run) if scripted is None else scripted)
    health["partial"] = partial
    return health


def health_from(judged: list[Verdict], shape, scripted: bool) -> dict:
    figures = summarise(judged, shape)
    by_agent = {a: summarise(g, shape) for a, g in sorted(grouped(judged, lambda v: v.call.agent).items())}
    by_profile = {p: summarise(g, shape) for p, g in sorted(grouped(judged, lambda v: v.call.profile).items())}
    by_day = {d: summarise(g, shape) for d, g in sorted(grouped(judged, lambda v: day_of(v.call.tick)).items())}
    by_agent_day = {k: summarise(g, shape) for k, g in
                    sorted(grouped(judged, lambda v: (v.call.agent, day_of(v.call.tick))).items())}
    found = [] if scripted else warnings_for(judged, figures, by_agent)
    return {"run": figures, "by_agent": by_agent, "by_profile": by_profile, "by_day": by_day,
            "by_agent_day": by_agent_day, "warnings": found, "scripted": scripted,
            "note": SCRIPTED if scripted else ""}


def health_line(health: dict) -> dict:
    """`model_health` in run_voyage's JSON line."""
    line = {k: health["run"][k] for k in LINE_KEYS}
    line["action_calls"] = health["run"]["action_calls"]
    line["warnings"] = [w.text for w in health["warnings"]]
    if health["scripted"]:
        line["scripted"] = health["note"]
    return line
