"""Dreaming (seeds 002 and 004): a sleep of 30+ simulated minutes (the night included) queues a
consolidation job that writes a third-person narrative of the agent's recent past in three parts —
who it believes it is and what it wants, the rooms it knows, whom it trusts or suspects. The latest
dream is in its context on waking. Inputs: its own rows since the last dream, the rooms those rows
name, and its own trust ledger (only once it knows names)."""
from __future__ import annotations

from memories.attempts import Attempt
from memories.identity import agent_for_job, identity_text
from memories.jobs import dreams_job
from memories.models import Dream, Memory, TrustEntry
from memories.writing import DREAM, messages, row_line, subject_of
from voyage.calls.factory import gateway_for
from voyage.calls.record import call_record
from voyage.gateway.base import DREAM as DREAM_PURPOSE, ModelRequest
from voyage.gateway.hints import RowsHints
from voyage.gateway.json_extract import parse_json_object
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


def dream_all(sleepers: list, *, gateway=None, attempt=None) -> int:
    """The dreams of one job (everyone who fell asleep at one tick), written together by the attempt."""
    attempt = attempt or Attempt(None)
    rooms_of = {}  # the room names and rungs, read and indexed once for the whole ship's dreams
    made = []
    own_gateway, gateways = gateway is None, {}
    try:
        for sleeper in sleepers:
            agent_id, tick, upto_row, rung, people = (list(sleeper) + [None, None, None])[:5]
            agent = agent_for_job(agent_id)
            if agent is None:
                continue
            if own_gateway and agent.run_id not in gateways:
                gateways[agent.run_id] = gateway_for(agent.run)
            d = dream(agent, tick, gateway=gateway or gateways[agent.run_id], rooms_of=rooms_of, attempt=attempt,
                      upto_row=upto_row, rung=rung, people=people)
            if d is not None:
                made.append(d)
    finally:
        for g in gateways.values():
            g.close()
    return len(made) if attempt.commit(lambda: Dream.objects.bulk_create(made)) else 0


def dream(agent, tick: int, *, gateway, attempt, rooms_of: dict, upto_row: int | None = None,
          rung: int | None = None, people: list | None = None) -> Dream | None:
    """One agent's dream, unsaved, from what its tick recorded: its rows up to `upto_row` (those
    committed with that tick), its `rung` then, and whom it had judged then (`people`: [name,
    label, score], newest format). `rooms_of`: room names by scenario id, and its rungs by ("rungs",
    scenario id), shared by the dreams of one job (filled as needed)."""
    if Dream.objects.filter(agent=agent, tick=tick).exists():
        return None
    if rung is not None:
        agent.rung = rung
    run = agent.run
    previous = Dream.objects.filter(agent=agent, tick__lt=tick).order_by("-tick").first()
    since = previous.last_row if previous and previous.last_row else 0
    rows = Memory.objects.filter(agent=agent, id__gt=since, tick__lte=tick)
    if upto_row is not None:
        rows = rows.filter(id__lte=upto_row)
    rows = list(rows.order_by("-id").values_list("id", "tick", "kind", "importance", "text")[:DREAM_ROWS])[::-1]
    rooms = set(previous.rooms_known if previous else [])
    if run.scenario_id not in rooms_of:
        rooms_of[run.scenario_id] = room_names(run.scenario_id)
    for r in rows:
        rooms |= rooms_of[run.scenario_id].found(r[4])
    rooms = sorted(rooms)
    if ("rungs", run.scenario_id) not in rooms_of:  # the scenario's rungs too: one query per job, not two per dreamer
        rooms_of[("rungs", run.scenario_id)] = run.scenario.rung_specs()
    rungs = rooms_of[("rungs", run.scenario_id)]
    if not knows(rungs, agent.rung, PEOPLE_NAMES):  # without names its ledger means nothing to it
        people = []
    elif people is None:  # a job recorded before its tick fixed whom it judged: the ledger as it is now
        people = ledger_people(agent)
    people = [tuple(p) for p in people]
    lines = [row_line(r[1], r[4]) for r in rows]
    lines.append("Rooms your memories name: " + (", ".join(rooms) or "none"))
    if people:
        lines.append("People you have judged: " + "; ".join(f"{n} ({label}, {score:+.2f})" for n, label, score in people))
    request = ModelRequest(purpose=DREAM_PURPOSE, messages=messages(identity_text(agent, rungs=rungs, upto_tick=tick),
                                                                    DREAM, lines), tick=tick,
                           agent_id=agent.id, agent_key=agent.persona.key,
                           hints=RowsHints(rows=tuple(r[1:] for r in rows), subject=subject_of(agent),
                                           rooms=tuple(rooms), people=tuple(people)))
    answer = gateway.complete(request)
    if answer.failed:
        attempt.record(call_record(run.pk, request, answer, LLMCall.ERROR))
        return None
    attempt.record(call_record(run.pk, request, answer, LLMCall.OK))
    parts = parse_json_object(answer.text) or {}
    text = answer.text.strip()
    return Dream(run=run, agent=agent, tick=tick, first_row=rows[0][0] if rows else None,
                 last_row=rows[-1][0] if rows else since or None,
                 identity=str(parts.get("identity") or ("" if parts else text))[:1000],
                 places=str(parts.get("places") or "")[:800], people=str(parts.get("people") or "")[:800],
                 rooms_known=rooms)


def ledger_people(agent) -> list[tuple]:
    entries = (TrustEntry.objects.filter(agent=agent, known_by_name=True).select_related("other__persona")
               .order_by("-interaction_count", "other_id")[:DREAM_PEOPLE])
    return [(e.other.persona.display_name, e.label, e.score) for e in entries]


def people_judged(world, agent_ids) -> dict[int, list]:
    """Whom each agent has judged, as its tick leaves the trust ledger (the in-memory one, one pass
    over it): [name, label, score] by most dealt with, for its dream job to carry."""
    wanted = set(agent_ids)
    judged = {aid: [] for aid in wanted}
    for (aid, other_id), entry in world.trust.items():
        if aid in wanted and entry.known_by_name:
            judged[aid].append(entry)
    return {aid: [[world.agents[e.other_id].persona.display_name, e.label, e.score]
                  for e in sorted(entries, key=lambda e: (-e.interaction_count, e.other_id))[:DREAM_PEOPLE]]
            for aid, entries in judged.items()}
