"""Dreaming (seeds 002 and 004): a sleep of 30+ simulated minutes (the night included) queues a
consolidation job that writes a third-person narrative of the agent's recent past in three parts —
who it believes it is and what it wants, the rooms it knows, whom it trusts or suspects. The latest
dream is in its context on waking. Inputs: its own rows since the last dream, the rooms those rows
name, and its own trust ledger (only once it knows names)."""
from __future__ import annotations

from django.db import IntegrityError, transaction

from memories.identity import agent_for_job, identity_text
from memories.jobs import dreams_job
from memories.models import Dream, Memory, TrustEntry
from memories.writing import DREAM, messages, row_line, subject_of
from voyage.gateway.base import DREAM as DREAM_PURPOSE, ModelRequest
from voyage.gateway.factory import gateway_for
from voyage.gateway.hints import RowsHints
from voyage.gateway.json_extract import parse_json_object
from voyage.gateway.record import call_record
from voyage.models import LLMCall
from world.models import Room
from world.rules.ladder import PEOPLE_NAMES, knows
from world.rules.names_in_text import NamesInText
from world.time import MINUTES_PER_TICK

MIN_SLEEP_MINUTES = 30
DREAM_ROWS = 150  # the most recent rows since the last dream a dream reads
DREAM_PEOPLE = 8


def queue_dreams(world, w, plan) -> None:
    """Ask for the dreams of everyone who fell asleep this tick for 30+ minutes, done once the tick
    commits (one job for them all: at nightfall that is the whole ship)."""
    sleepers = []
    for a in world.living():
        began = a.slept_since_tick
        if a.asleep and began in (plan.tick, plan.new_tick) and \
                (a.busy_until_tick - began) * MINUTES_PER_TICK >= MIN_SLEEP_MINUTES:
            sleepers.append([a.id, began])
    if sleepers:
        w.memory_jobs.append(dreams_job(world.run.pk, plan.new_tick, sorted(sleepers)))


def room_names(scenario_id: int) -> NamesInText:
    """The scenario's room names, to find in a dream's rows: built once per job, not per dreamer."""
    return NamesInText(Room.objects.filter(scenario_id=scenario_id).order_by("id").values_list("name", flat=True))


def dream(agent_id: int, tick: int, *, gateway=None, rooms_of: dict | None = None) -> Dream | None:
    """`rooms_of`: room names by scenario id, and its rungs by ("rungs", scenario id), shared by the
    dreams of one job (filled as needed)."""
    agent = agent_for_job(agent_id)
    if agent is None or Dream.objects.filter(agent=agent, tick=tick).exists():
        return None
    run = agent.run
    previous = Dream.objects.filter(agent=agent, tick__lt=tick).order_by("-tick").first()
    since = previous.last_row if previous and previous.last_row else 0
    rows = list(Memory.objects.filter(agent=agent, id__gt=since, tick__lte=tick).order_by("-id")
                .values_list("id", "tick", "kind", "importance", "text")[:DREAM_ROWS])[::-1]
    rooms = set(previous.rooms_known if previous else [])
    rooms_of = {} if rooms_of is None else rooms_of
    if run.scenario_id not in rooms_of:
        rooms_of[run.scenario_id] = room_names(run.scenario_id)
    for r in rows:
        rooms |= rooms_of[run.scenario_id].found(r[4])
    rooms = sorted(rooms)
    if ("rungs", run.scenario_id) not in rooms_of:  # the scenario's rungs too: one query per job, not two per dreamer
        rooms_of[("rungs", run.scenario_id)] = run.scenario.rung_specs()
    rungs = rooms_of[("rungs", run.scenario_id)]
    people = []
    if knows(rungs, agent.rung, PEOPLE_NAMES):  # without names its ledger means nothing to it
        entries = (TrustEntry.objects.filter(agent=agent, known_by_name=True).select_related("other__persona")
                   .order_by("-interaction_count", "other_id")[:DREAM_PEOPLE])
        people = [(e.other.persona.display_name, e.label, e.score) for e in entries]
    lines = [row_line(r[1], r[4]) for r in rows]
    lines.append("Rooms your memories name: " + (", ".join(rooms) or "none"))
    if people:
        lines.append("People you have judged: " + "; ".join(f"{n} ({label}, {score:+.2f})" for n, label, score in people))
    request = ModelRequest(purpose=DREAM_PURPOSE, messages=messages(identity_text(agent, rungs=rungs), DREAM, lines), tick=tick,
                           agent_id=agent.id, agent_key=agent.persona.key,
                           hints=RowsHints(rows=tuple(r[1:] for r in rows), subject=subject_of(agent),
                                           rooms=tuple(rooms), people=tuple(people)))
    own_gateway = gateway is None
    gateway = gateway or gateway_for(run)
    try:
        answer = gateway.complete(request)
    finally:
        if own_gateway:
            gateway.close()
    if answer.failed:
        call_record(run.pk, request, answer, LLMCall.ERROR).save()
        return None
    parts = parse_json_object(answer.text) or {}
    text = answer.text.strip()
    made = Dream(run=run, agent=agent, tick=tick, first_row=rows[0][0] if rows else None,
                 last_row=rows[-1][0] if rows else since or None,
                 identity=str(parts.get("identity") or ("" if parts else text))[:1000],
                 places=str(parts.get("places") or "")[:800], people=str(parts.get("people") or "")[:800],
                 rooms_known=rooms)
    try:
        with transaction.atomic():
            made.save()
            call_record(run.pk, request, answer, LLMCall.OK).save()
    except IntegrityError:  # the same sleep, dreamt by another worker first
        return None
    return made
