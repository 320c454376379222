"""The steps of a tick (their order: world/rules/tick_order.py, which tick.py and ahead.py walk)."""
from __future__ import annotations

import logging
from collections import Counter

from memories import reflection, trust
from memories.ablation import off
from memories.compaction import check_before_action
from memories.context import action_messages, cues_for, hot_window, recalled_ids, writing_messages
from memories.diary import rows_of_day, write_diaries
from voyage.engine.resolve import approach, fall_asleep, hop, resolve_action
from voyage.engine.world import RunWorld, SinceDigest
from voyage.engine.writer import TickWriter
from voyage.gateway.base import ACTION, BULLETIN, REFLECTION, Gateway, ModelRequest, answered
from voyage.gateway.hints import ActionHints, TextHints
from voyage.gateway.prompts import prompt_text
from voyage.models import Event, LLMCall
from world.models import AgentState
from world.rules.action_schema import rooms_named
from world.rules.actions import ActionFail, ignored_note, parse_action
from world.rules.ladder import OWN_NAME, SETTING, rung_spec
from world.rules.schema_dialects import BRANCHES, schema_in
from world.time import TICKS_PER_DAY, next_dawn, sim_clock

digest_log = logging.getLogger("voyage.digest")

REFLECT = (
    "Reflect silently on what has happened to you. Write one short paragraph, in the first person, "
    "beginning with [reflection]: the cover story you will keep to, and what you must do next."
)


# --- 1. spouse collision -------------------------------------------------------------------
def spouse_collision(world: RunWorld, w: TickWriter) -> None:
    """Agents sharing a home_node meet: a mutual-presence memory, then a forced interaction — each
    approaches each of the others, who sees it (an `interact` event apiece)."""
    homes: dict[int, list[AgentState]] = {}
    for a in world.living():
        homes.setdefault(a.persona.home_node_id, []).append(a)
    for home_id, group in sorted(homes.items()):
        if len(group) < 2:
            continue
        group.sort(key=lambda a: a.persona.key)
        for a in group:
            others = [o for o in group if o.id != a.id]
            names = ", ".join(world.seen_as(a, o) for o in others)
            spouse = any(o.persona_id == a.persona.spouse_id for o in others)
            bond = "you feel, past all reason, that you belong together" if spouse else world.voice.say("shared_bond")
            w.remember(a, "presence", f"You are not alone: {names} is here beside you, and {bond}. "
                                      f"You reach for them and search their face for a name.")
        w.event("spouse_collision", room_id=home_id, text="they wake together",
                data={"agents": [a.persona.key for a in group]})
        for a in group:
            for o in group:
                if o is not a:
                    approach(world, w, a, o, labels=(bond_label(world, a, o), bond_label(world, o, a)),
                             forced="spouse collision")


def bond_label(world: RunWorld, agent: AgentState, other: AgentState) -> str:
    return "spouse" if other.persona_id == agent.persona.spouse_id else world.voice.say("sharer_label")


# --- 2. agent actions ----------------------------------------------------------------------
def wake_sleepers(world: RunWorld, w: TickWriter, order: list[int]) -> None:
    for aid in order:
        wake(world, w, world.agents[aid])


def wake(world: RunWorld, w: TickWriter, a: AgentState) -> None:
    """A sleeper whose sleep is over wakes, at the start of the tick."""
    if a.asleep and a.busy_until_tick <= w.tick:
        a.asleep = False
        a.busy_until_tick = w.tick + 1 if w.tick % TICKS_PER_DAY == 0 else w.tick
        first = w.tick == 0
        where = world.room_name(a.location_id) if world.knows(a, SETTING) or not first else "a place you do not know"
        text = ("You wake with a start in " + where + ". You cannot remember who you are, or how you came here."
                if first else f"You wake in the {world.room_name(a.location_id)}.")
        w.remember(a, "sleep", text)
        w.event("wake", actor=a, room_id=a.location_id)
        w.touch(a)


def _ready(a: AgentState, tick: int) -> bool:
    return a.alive and not a.asleep and a.busy_until_tick <= tick


def decides(world: RunWorld, a: AgentState, tick: int) -> bool:
    """Does the agent make an action call this tick? The others walk on, collapse, or wait."""
    return _ready(a, tick) and a.destination_id is None and a.fatigue < world.run.fatigue_limit


def travel_or_collapse(world: RunWorld, w: TickWriter, a: AgentState) -> bool:
    """Moves that need no model call: a walk in progress, or sleep forced by fatigue."""
    if not a.alive or a.asleep:
        return True
    if a.destination_id is not None:
        hop(world, w, a)
        return True
    if a.busy_until_tick > w.tick:
        return True
    if a.fatigue >= world.run.fatigue_limit:
        fall_asleep(world, w, a, w.tick + 20, "Exhaustion takes you; you fall asleep where you stand.")
        return True
    return False


def action_request(world: RunWorld, a: AgentState, tick: int, *, schema: bool = True, dialect: str = BRANCHES,
                   situation=None):
    """The situation and the action call for an agent now. `schema`: build the call's JSON schema
    (only endpoints that take one need it), in the schema `dialect` the endpoint enforces: both
    from Gateway.action_shape, which asks the endpoint this agent's actions go to. `situation`: the
    agent's situation now, if the caller has built it already (world.situation)."""
    situation = situation if situation is not None else world.situation(a)
    cues = cues_for(world, a, tick)
    hints = ActionHints(
        situation=situation,
        display_name=a.persona.display_name if world.knows(a, OWN_NAME) else None,
        home_name=world.room_name(a.persona.home_node_id) if world.knows(a, SETTING) else None,
        cues=cues,
    )
    messages = action_messages(world, a, situation, tick, cues)
    # One source: the schema names what this prompt shows, and the rooms its text names.
    shape = schema_in(dialect, situation, rung_spec(world.rungs, a.rung).allowed_actions,
                      rooms_named(prompt_text(messages), world.room_names)) if schema else None
    return situation, ModelRequest(purpose=ACTION, messages=messages, tick=tick, agent_id=a.id,
                                   agent_key=a.persona.key, hints=hints, schema=shape,
                                   recalled=recalled_ids(world, a))


def settle(world: RunWorld, w: TickWriter, a: AgentState, situation, request, answer, action=None) -> None:
    """Parse the answer at the boundary and resolve it; every outcome is recorded with the call (an
    action that went ahead notes what of its answer it set aside: "volume ignored: sleep"). `action`:
    the answer already parsed (parse_action), if the caller has."""
    if answer.failed:
        action = ActionFail(f"the model did not answer ({answer.error})")
    elif action is None:
        action = parse_action(answer.text)
    reason = resolve_action(world, w, a, situation, action)
    if reason:
        w.call(request, answer, LLMCall.ACTION_FAIL, reason)
    else:
        w.call(request, answer, LLMCall.OK, ignored_note(action))


def act_sequentially(world: RunWorld, w: TickWriter, gateway: Gateway, order: list[int]) -> None:
    """The seed's schedule: one after another; later agents perceive what earlier ones did."""
    for aid in order:
        a = world.agents[aid]
        if travel_or_collapse(world, w, a):
            continue
        check_before_action(world, w, a, gateway)  # compaction: soft queues a job, hard compacts now
        takes_schema, dialect = gateway.action_shape(a.persona.key)
        situation, request = action_request(world, a, w.tick, schema=takes_schema, dialect=dialect)
        settle(world, w, a, situation, request, gateway.complete(request))


# The simultaneous schedule: everyone decides on the same tick-start snapshot; actions then resolve
# in the seeded order (a target that has gone by then is an ACTION_FAIL). Each call starts as soon as
# its prompt is built, in the seeded order, and each answer resolves as soon as those before it have:
# the tick takes about one call's latency, not the slowest call plus all the prompts and resolutions.
def compaction_checks(world: RunWorld, w: TickWriter, gateway: Gateway, deciding: list[AgentState]) -> None:
    for a in deciding:
        check_before_action(world, w, a, gateway)  # compaction: soft queues a job, hard compacts now


def ask_all(world: RunWorld, gateway: Gateway, deciding: list[AgentState], tick: int) -> dict[int, tuple]:
    """Every prompt, built before anything resolves (the tick-start snapshot), and its call started:
    agent id -> (situation, request, the call's future)."""
    asked = {}
    for a in deciding:
        takes_schema, dialect = gateway.action_shape(a.persona.key)
        situation, request = action_request(world, a, tick, schema=takes_schema, dialect=dialect)
        asked[a.id] = (situation, request, gateway.start(request))
    return asked


def resolve_in_order(world: RunWorld, w: TickWriter, order: list[int], asked: dict[int, tuple]) -> None:
    for aid in order:
        a = world.agents[aid]
        if aid in asked:
            situation, request, call = asked[aid]
            if a.alive:
                settle(world, w, a, situation, request, call.result())
            else:
                w.call(request, call.result(), LLMCall.SKIPPED, "died before the action resolved")
        else:
            travel_or_collapse(world, w, a)


# --- 3. social attrition -------------------------------------------------------------------
def social_attrition(world: RunWorld, w: TickWriter) -> None:
    for a in world.living():
        alone_too_long(world, w, a)


def alone_too_long(world: RunWorld, w: TickWriter, a: AgentState) -> bool:
    """Count the agent's ticks alone in a private room (awake); at the threshold, the rumour goes
    round every living agent. True when it did."""
    room = world.rooms[a.location_id]
    alone = room.private and not a.asleep and not world.occupants(room.id, exclude=a.id)
    if not alone:
        if a.attrition:
            a.attrition = 0
            w.touch(a)
        return False
    a.attrition += 1
    w.touch(a)
    if a.attrition < world.run.attrition_threshold:
        return False
    a.attrition = 0
    rumour = f"Word goes round that whoever has the {room.name} keeps to it and will not show their face."
    for o in world.living():
        if o.id != a.id:
            w.remember(o, "suspicion", rumour)
    w.event("attrition", actor=a, room_id=room.id, text=rumour)
    return True


# --- 5. reflections ------------------------------------------------------------------------
def reflection_due(world: RunWorld, a: AgentState, tick: int, plan) -> str | None:
    """Why the agent reflects at the end of this tick (`tick`: the new tick), or None."""
    if off(world.run, "reflection"):
        return None
    run = world.run
    if a.asleep or tick - a.last_reflection_tick < run.reflection_cooldown:
        return None
    spike = a.importance_accumulator >= run.importance_threshold
    if plan.scheduled_reflection or a.reflection_pending or spike:
        return a.reflection_pending or ("a tension spike" if spike else "the hour")
    return None


def reflections(world: RunWorld, w: TickWriter, gateway: Gateway, plan, due: list | None = None) -> None:
    """The reflections of those due (`due`: (agent, why) in persona-key order; by default, everyone
    living who is), each scored for importance, then their trust calls."""
    if due is None:
        due = [(a, why) for a in sorted(world.living(), key=lambda a: a.persona.key)
               if (why := reflection_due(world, a, w.tick, plan))]
    answered(reflecting(world, w, due), gateway)


def reflecting(world: RunWorld, w: TickWriter, due: list):
    """`reflections` as steps (voyage.gateway.base.answered): three rounds of calls. Its rows are
    written in stages (TickWriter.stage), so that agents reflecting one by one, out of order, leave
    them in the order of a batch."""
    requests, evidence = [], []
    for a, why in due:
        shown = hot_window(world, a)  # the rows the prompt shows are the reflection's evidence
        lines = [h.text for h in shown]
        messages = writing_messages(world, a, REFLECT + f" (Prompted by {why}.)", lines)
        requests.append(ModelRequest(purpose=REFLECTION, messages=messages, tick=w.tick, agent_id=a.id,
                                     agent_key=a.persona.key, hints=TextHints(tuple(lines))))
        evidence.append(shown)
    answers = (yield requests) if requests else []
    written = []
    w.stage(0)
    for (a, why), request, answer, shown in zip(due, requests, answers, evidence):
        a.last_reflection_tick = w.tick
        a.reflection_pending = ""
        a.importance_accumulator = 0
        w.touch(a)
        if answer.failed:
            w.call(request, answer, LLMCall.SKIPPED)
            continue
        text = answer.text.strip()
        if not text.startswith("[reflection]"):
            text = "[reflection] " + text
        written.append((a, why, request, answer, shown, text))
    w.stage(1)
    scores = yield from reflection.scoring(world, w, [(a, text) for a, _, _, _, _, text in written])
    w.stage(2)
    for (a, why, request, answer, shown, text), score in zip(written, scores):
        reflection.remember(w, a, text, score, shown)
        a.importance_accumulator = 0
        w.call(request, answer, LLMCall.OK, why)
        w.event("reflection", actor=a, room_id=a.location_id, text=why)
    # trust calls (reasoning on) for the people each reflecting agent dealt with, from its hot window
    w.stage(3)
    yield from trust.assessing(world, w, [a for a, *_ in written], lambda a: [h.text for h in hot_window(world, a)])


# --- 6. wind-down --------------------------------------------------------------------------
def wind_down(world: RunWorld, w: TickWriter) -> None:
    for n, a in enumerate(sorted(world.living(), key=lambda a: a.persona.key)):
        minutes = 6 + 3 * (n % 8)  # staggered, so the corridors do not fill at once
        w.remember(a, "cue", world.voice.say("wind_down_cue", minutes=minutes))
    w.event("wind_down", text=world.voice.say("wind_down_event"))


# --- 7. nightfall --------------------------------------------------------------------------
def nightfall(world: RunWorld, w: TickWriter) -> None:
    dawn = next_dawn(w.tick)
    for a in sorted(world.living(), key=lambda a: a.persona.key):
        a.asleep, a.destination_id, a.busy_until_tick = True, None, dawn
        a.fatigue = 0
        a.slept_since_tick = w.tick
        w.remember(a, "sleep", world.voice.say("nightfall_memory", room=world.room_name(a.location_id)))
        w.touch(a)
    w.event("nightfall", text=world.voice.say("nightfall_event", time=sim_clock(dawn)))


def night_thoughts(world: RunWorld, w: TickWriter, gateway: Gateway) -> None:
    """At nightfall: each living agent's diary entry, and its trust calls for the people it dealt
    with, both from its own rows of the day."""
    day_rows = {a.id: rows_of_day(world, w, a) for a in world.living()}
    write_diaries(world, w, gateway, day_rows)
    trust.assess(world, w, gateway, sorted(world.living(), key=lambda a: a.persona.key),
                 lambda a: [r.text for r in day_rows[a.id]])


# --- 8. digest -----------------------------------------------------------------------------
def digest(world: RunWorld, w: TickWriter) -> None:
    """A log line every 10 ticks: where people are now, and over the ticks since the last digest what
    was said (how much, and the latest words) and what mattered. No writes."""
    since, world.since_digest = world.since_digest, SinceDigest()
    if not digest_log.isEnabledFor(logging.INFO):
        return
    crowd = Counter(world.room_name(a.location_id) for a in world.living())
    digest_log.info("%s | run %s | %s | said %d: %s | %s", sim_clock(w.tick), world.run.pk,
                    ", ".join(f"{room} {n}" for room, n in crowd.most_common(5)), since.said,
                    " / ".join(since.latest_said) or "-", "; ".join(since.notable) or "-")


# --- 9. daily bulletin ---------------------------------------------------------------------
def bulletin(world: RunWorld, w: TickWriter, gateway: Gateway) -> None:
    """The gossip sheet: an LLM summary of the day's PUBLIC facts only (deaths, where crowds were,
    where there was shouting, the rumours already abroad) — never words that were withheld from
    anyone, never a monologue — delivered into every living agent's stream."""
    lines = public_facts(world, w.tick - TICKS_PER_DAY, w.tick, w)
    request = ModelRequest(purpose=BULLETIN, messages=[
        {"role": "system", "content": world.voice.say("bulletin_brief")},
        {"role": "user", "content": "\n".join(lines) or "(a quiet day)"},
    ], tick=w.tick, hints=TextHints(tuple(lines)))
    answer = gateway.complete(request)
    if answer.failed:
        w.call(request, answer, LLMCall.SKIPPED)
        return
    w.call(request, answer, LLMCall.OK)
    for a in sorted(world.living(), key=lambda a: a.persona.key):
        w.remember(a, "bulletin", world.voice.say("bulletin_delivery", bulletin=answer.text))
    w.event("bulletin", text=answer.text)


def public_facts(world: RunWorld, start: int, end: int, w: TickWriter) -> list[str]:
    rows = list(Event.objects.filter(run=world.run, tick__gte=start, tick__lt=end,
                                     kind__in=("death", "communicate", "move", "attrition"))
                .values_list("kind", "room_id", "text", "data", "actor_id"))
    rows += [(e.kind, e.room_id, e.text, e.data, e.actor_id) for e in w.events]
    facts, crowds, shouting = [], Counter(), Counter()
    for kind, room_id, text, data, actor_id in rows:
        if kind == "death":
            facts.append(f"{world.agents[actor_id].persona.display_name} was found dead in the {world.room_name(room_id)}.")
        elif kind == "attrition":
            facts.append(text)
        elif kind == "move" and data.get("arrived"):
            crowds[world.room_name(room_id)] += 1
        elif kind == "communicate" and data.get("volume") == "shout":
            shouting[world.room_name(room_id)] += 1
    for room, n in crowds.most_common(2):
        facts.append(f"The {room} was the place to be seen ({n} comings and goings).")
    for room, n in shouting.most_common(2):
        facts.append(f"There was shouting in the {room}, {n} times over.")
    return facts
