"""Dreaming (seeds 002 and 004): a sleep of 30+ simulated minutes (the night included) queues a
consolidation job that writes a third-person narrative of the agent's recent past in three parts —
who it believes it is and what it wants, the rooms it knows, whom it trusts or suspects. The latest
dream is in its context on waking. Inputs: its own rows since the last dream, the rooms those rows
name, and its own trust ledger (only once it knows names)."""
from __future__ import annotations

from memories.ablation import off
from memories.attempts import Attempt
from memories.identity import agent_for_job, identity_text
from memories.job_records import Dreams, Sleeper, register
from memories.models import Dream, Memory, TrustEntry
from memories.trust import entries_by_agent
from memories.writing import DREAM, ROW, hint_rows, messages, row_line, subject_of
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
    if off(world.run, "dreams"):
        return
    sleepers = [(a.id, a.slept_since_tick) for a in world.living() if dreams_tonight(a, plan)]
    if sleepers:
        w.memory_jobs.append(Dreams.asked(world.run.pk, plan.new_tick, sleepers))


def dreams_tonight(agent, plan) -> bool:
    """Did the agent fall asleep this tick (`plan`: world.time.TickPlan) for 30 minutes or more?"""
    began = agent.slept_since_tick
    return agent.asleep and began in (plan.tick, plan.new_tick) and \
        (agent.busy_until_tick - began) * MINUTES_PER_TICK >= MIN_SLEEP_MINUTES


class Scenarios:
    """What the dreams of one job read of their scenarios, read once for them all, not per dreamer:
    the room names to find in a dreamer's rows, and the rungs."""

    def __init__(self):
        self._names: dict[int, NamesInText] = {}
        self._rungs: dict[int, list] = {}

    def room_names(self, scenario_id: int) -> NamesInText:
        if scenario_id not in self._names:
            self._names[scenario_id] = NamesInText(
                Room.objects.filter(scenario_id=scenario_id).order_by("id").values_list("name", flat=True))
        return self._names[scenario_id]

    def rungs(self, scenario) -> list:
        if scenario.pk not in self._rungs:
            self._rungs[scenario.pk] = scenario.rung_specs()
        return self._rungs[scenario.pk]


def do_dreams(job: Dreams, gateway=None, attempt=None) -> int:
    return dream_all(job.sleepers, gateway=gateway, attempt=attempt, shown_from=job.shown_from)


def dream_all(sleepers: tuple[Sleeper, ...], *, gateway=None, attempt=None, shown_from: int = 0) -> int:
    """The dreams of one job (everyone who fell asleep at one tick), written together by the attempt,
    each shown in prompts from `shown_from` (the job's tick + SHOW_LAG: by the time its dreamer wakes)."""
    attempt = attempt or Attempt(None)
    scenarios = Scenarios()
    made = []
    own_gateway, gateways = gateway is None, {}
    try:
        for sleeper in sleepers:
            agent = agent_for_job(sleeper.agent_id)
            if agent is None:
                continue
            if own_gateway and agent.run_id not in gateways:
                gateways[agent.run_id] = gateway_for(agent.run)
            d = dream(agent, sleeper.slept_since, gateway=gateway or gateways[agent.run_id], scenarios=scenarios,
                      attempt=attempt, upto_row=sleeper.upto_row, rung=sleeper.rung, people=sleeper.people)
            if d is not None:
                d.shown_from = shown_from
                made.append(d)
    finally:
        for g in gateways.values():
            g.close()
    return len(made) if attempt.commit(lambda: Dream.objects.bulk_create(made)) else 0


register(Dreams, do_dreams)


def dream(agent, tick: int, *, gateway, attempt, scenarios: Scenarios, upto_row: int | None = None,
          rung: int | None = None, people: list | None = None) -> Dream | None:
    """One agent's dream, unsaved, from what its tick recorded: its rows up to `upto_row` (those
    committed with that tick), its `rung` then, and whom it had judged then (`people`: [name,
    label, score], newest format)."""
    if Dream.objects.filter(agent=agent, tick=tick).exists():
        return None
    if rung is not None:
        agent.rung = rung
    run = agent.run
    previous = Dream.objects.filter(agent=agent, tick__lt=tick).order_by("-tick").first()
    since = previous.last_row if previous and previous.last_row else 0
    rows = rows_since(agent, since, tick, upto_row)
    rooms = rooms_named(previous, rows, scenarios.room_names(run.scenario_id))
    rungs = scenarios.rungs(run.scenario)
    people = people_known(agent, rungs, people)
    request = dream_request(agent, tick, rows, rooms, people, rungs)
    answer = gateway.complete(request)
    attempt.record(call_record(run.pk, request, answer, LLMCall.ERROR if answer.failed else LLMCall.OK))
    if answer.failed:
        return None
    return dream_of(answer.text, run, agent, tick, rows, since, rooms)


def rows_since(agent, since: int, tick: int, upto_row: int | None) -> list[tuple]:
    """The newest DREAM_ROWS rows after the last dream's (up to `upto_row`), oldest first (named
    rows: id, tick, kind, importance, text)."""
    rows = Memory.objects.filter(agent=agent, id__gt=since, tick__lte=tick)
    if upto_row is not None:
        rows = rows.filter(id__lte=upto_row)
    return list(rows.order_by("-id").values_list(*ROW, named=True)[:DREAM_ROWS])[::-1]


def rooms_named(previous: Dream | None, rows: list[tuple], names: NamesInText) -> list[str]:
    """The rooms the agent's memories have named: the last dream's, and those the new rows name."""
    rooms = set(previous.rooms_known if previous else [])
    for r in rows:
        rooms |= names.found(r.text)
    return sorted(rooms)


def people_known(agent, rungs, people: list | None) -> list[tuple]:
    """Whom the dream may name: none without names (its ledger means nothing to it), else whom its
    tick recorded it had judged (a job recorded before that field: the ledger as it is now)."""
    if not knows(rungs, agent.rung, PEOPLE_NAMES):
        return []
    if people is None:
        people = ledger_people(agent)
    return [tuple(p) for p in people]


def dream_request(agent, tick: int, rows: list[tuple], rooms: list[str], people: list[tuple], rungs) -> ModelRequest:
    lines = [row_line(r.tick, r.text) for r in rows]
    lines.append("Rooms your memories name: " + (", ".join(rooms) or "none"))
    if people:
        lines.append("People you have judged: " + "; ".join(f"{n} ({label}, {score:+.2f})" for n, label, score in people))
    return ModelRequest(purpose=DREAM_PURPOSE, messages=messages(identity_text(agent, rungs=rungs, upto_tick=tick),
                                                                 DREAM, lines), tick=tick,
                        agent_id=agent.id, agent_key=agent.persona.key,
                        hints=RowsHints(rows=hint_rows(rows), subject=subject_of(agent),
                                        rooms=tuple(rooms), people=tuple(people)))


def dream_of(text: str, run, agent, tick: int, rows: list[tuple], since: int, rooms: list[str]) -> Dream:
    """The Dream row of an answer: its JSON fields, or the whole text as the identity part."""
    parts = parse_json_object(text) or {}
    return Dream(run=run, agent=agent, tick=tick, first_row=rows[0].id if rows else None,
                 last_row=rows[-1].id if rows else since or None,
                 identity=str(parts.get("identity") or ("" if parts else text.strip()))[:1000],
                 places=str(parts.get("places") or "")[:800], people=str(parts.get("people") or "")[:800],
                 rooms_known=rooms)


def ledger_people(agent) -> list[tuple]:
    entries = (TrustEntry.objects.filter(agent=agent, known_by_name=True).select_related("other__persona")
               .order_by("-interaction_count", "other_id")[:DREAM_PEOPLE])
    return [(e.other.persona.display_name, e.label, e.score) for e in entries]


def people_judged(world, agent_ids) -> dict[int, list]:
    """Whom each agent has judged, as its tick leaves the trust ledger (the in-memory one, by agent:
    memories.trust.entries_by_agent): [name, label, score] by most dealt with, for its dream job to
    carry."""
    of = entries_by_agent(world)
    judged = {aid: [e for e in of.get(aid, ()) if e.known_by_name] for aid in set(agent_ids)}
    return {aid: [[world.agents[e.other_id].persona.display_name, e.label, e.score]
                  for e in sorted(entries, key=lambda e: (-e.interaction_count, e.other_id))[:DREAM_PEOPLE]]
            for aid, entries in judged.items()}
