"""An agent's mind as it stood at tick T, rebuilt from what carries a tick stamp: the interviews'
source (voyage/instruments/interviews.py), and nothing else's.

"At tick T" means everything stamped with a tick number up to T and nothing stamped later: the
agent as it stood once tick T's actions were done. A run at tick N has written nothing stamped
after N, so asking "as of now" (T = N) reads everything the agent has.

- its state (rung, alive, room): its own `rung`, `death` and `move` events up to T, folded as the
  time-travel slider folds them (voyage.records.timetravel.apply);
- its hot window: its last `hot_memory_limit` rows stamped up to T (rows are written in tick
  order, so those rows are a prefix of its stream by id);
- summaries and eras: those covering only rows that had left that hot window by T (a summary
  never covers a row after its range, so none says anything written after T); of an era and what
  it folds, the era if it qualifies, else the summaries it folds;
- its latest dream of a sleep begun by T; its trust ledger as its history stood at T, by name only
  once its rung at T knows names and trust labels, and only for people it had met knowing names;
- recall: its rows older than that hot window matching the question's words (memories.recall,
  the search the context builder uses).

Everything here is the agent's own. Reads only; it writes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from memories.models import Dream, Memory, MemorySummary, TrustHistory
from memories.recall import recall
from world.models import AgentState
from world.rules.ladder import PEOPLE_NAMES, TRUST_LABELS, knows

RECALL_K = 4
STATE_KINDS = ("move", "death", "rung")


@dataclass(frozen=True)
class RowAt:
    id: int
    tick: int
    kind: str
    text: str


@dataclass(frozen=True)
class MindAt:
    tick: int
    rung: int
    alive: bool
    died_tick: int | None
    room_name: str
    rows: tuple[RowAt, ...]  # the hot window, oldest first
    summaries: tuple[str, ...] = ()  # oldest first
    dream: str | None = None
    trust: tuple[tuple[str, str, str], ...] = ()  # (name, label, emotional tone)
    recalled: tuple[RowAt, ...] = field(default=())  # oldest first


def state_at(agent: AgentState, tick: int) -> tuple[int, bool, int | None, int]:
    """(rung, alive, tick of death or None, room id) after every event stamped up to `tick`."""
    rung, alive, died, room = 0, True, None, agent.persona.home_node_id
    events = (agent.run.events.filter(actor=agent, kind__in=STATE_KINDS, tick__lte=tick).order_by("seq")
              .values_list("tick", "kind", "room_id", "data"))
    for t, kind, room_id, data in events:
        if kind == "move":
            room = room_id
        elif kind == "rung":
            rung = int(data["rung"])
        elif kind == "death":
            alive, died = False, t
    return rung, alive, died, room


def hot_rows(agent: AgentState, tick: int, limit: int) -> list[RowAt]:
    if limit <= 0:
        return []
    rows = (Memory.objects.filter(agent=agent, tick__lte=tick).order_by("-id")
            .values_list("id", "tick", "kind", "text")[:limit])
    return [RowAt(*r) for r in reversed(rows)]


def summaries_before(agent: AgentState, tick: int, bound: int) -> list[str]:
    """The summary texts covering only rows with id < bound and stamped up to `tick`, oldest first;
    an era in place of the summaries it folds when the era itself qualifies."""
    rows = list(MemorySummary.objects.filter(agent=agent, last_row__lt=bound, tick__lte=tick)
                .order_by("first_row", "-level").values_list("id", "folded_into_id", "text"))
    shown = {i for i, _, _ in rows}
    return [text for i, folded_into, text in rows if folded_into not in shown]


def dream_at(agent: AgentState, tick: int) -> str | None:
    latest = Dream.objects.filter(agent=agent, tick__lte=tick).order_by("-tick").first()
    return latest.text if latest else None


def trust_at(agent: AgentState, tick: int, rung: int, rungs) -> list[tuple[str, str, str]]:
    """Each person's entry as its history stood at `tick`, if the rung then shows names and labels.
    An entry counts as met knowing names once a trust call assessed it (those calls are made only
    about such entries) or if it was first met after the rung that knows names was reached: a
    person met only while names were unknown stays unnamed (TrustEntry.known_by_name)."""
    if not (knows(rungs, rung, PEOPLE_NAMES) and knows(rungs, rung, TRUST_LABELS)):
        return []
    names_since = names_known_since(agent, tick, rungs)
    latest: dict[int, tuple] = {}
    known: set[int] = set()
    history = (TrustHistory.objects.filter(entry__agent=agent, tick__lte=tick).order_by("tick", "id")
               .values_list("entry_id", "tick", "label", "emotional_tone", "rationale",
                            "entry__other__persona__display_name"))
    for entry, t, label, tone, rationale, name in history:
        latest[entry] = (name, label, tone)
        if rationale != "first met" or (names_since is not None and t >= names_since):
            known.add(entry)
    return sorted((latest[e] for e in known), key=lambda x: x[0])


def names_known_since(agent: AgentState, tick: int, rungs) -> int | None:
    """The tick the agent's rung first knew people's names, up to `tick` (None: not by then)."""
    if knows(rungs, 0, PEOPLE_NAMES):
        return 0
    climbs = (agent.run.events.filter(actor=agent, kind="rung", tick__lte=tick).order_by("seq")
              .values_list("tick", "data"))
    return next((t for t, data in climbs if knows(rungs, int(data["rung"]), PEOPLE_NAMES)), None)


def mind_at(agent: AgentState, tick: int, question: str = "") -> MindAt:
    """The agent (loaded with persona and run__scenario) as it stood at `tick`; `question`'s words
    recall older rows."""
    run = agent.run
    rungs = run.scenario.rung_specs()
    rung, alive, died, room_id = state_at(agent, tick)
    rows = hot_rows(agent, tick, run.hot_memory_limit)
    if rows:
        bound = rows[0].id
    else:  # no hot window (or no rows yet): every row stamped up to T counts as older
        last = Memory.objects.filter(agent=agent, tick__lte=tick).order_by("-id").values_list("id", flat=True).first()
        bound = (last or 0) + 1
    recalled = ()
    if question and bound > 1:
        hits = recall(agent.id, question, k=RECALL_K, before_id=bound, now_tick=tick)
        recalled = tuple(RowAt(h.id, h.tick, h.kind, h.text) for h in sorted(hits, key=lambda h: h.id))
    return MindAt(tick=tick, rung=rung, alive=alive, died_tick=died,
                  room_name=run.scenario.rooms.get(pk=room_id).name, rows=tuple(rows),
                  summaries=tuple(summaries_before(agent, tick, bound)), dream=dream_at(agent, tick),
                  trust=tuple(trust_at(agent, tick, rung, rungs)), recalled=recalled)


def living_at(run, tick: int):
    """The run's agents alive after every event stamped up to `tick`, by persona key."""
    dead = set(run.events.filter(kind="death", tick__lte=tick).values_list("actor_id", flat=True))
    return [a for a in AgentState.objects.filter(run=run).select_related("persona", "run__scenario")
            .order_by("persona__key") if a.id not in dead]

