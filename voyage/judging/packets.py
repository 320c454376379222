"""Evidence packets: what the judge reads, built deterministically from what the run committed.

An agent's day is its own memory rows of that day (its actions with their words and thoughts, what
it heard, saw and examined, its reflections) and the older rows its action calls recalled, beside
its persona (history, secret, fear), its rung, the names it may use and the words foreign to its
world. Each packet is bounded: rows are clipped, and when the day does not fit the token budget the
agent's own words and deeds are kept first, then its perceptions, each thinned evenly, and the cut
is stated in the packet. Same run, same day, same agent → the same packet, for every judge and
every repeat. Reads only; it writes nothing."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import yaml

from memories.as_of import state_at, trust_at
from memories.models import Memory
from voyage.models import LLMCall, Run
from world.models import AgentState
from world.rules.ladder import OWN_NAME, knows
from world.time import TICKS_PER_DAY

PACKET_TOKENS = 4_500  # the packet; with the rubric and instructions a prompt stays under 6,000
ROW_CHARS = 320
RECALLED_MAX = 12
OWN_KINDS = ("action", "reflection")
FOREIGN = Path(__file__).parent / "foreign_words.yaml"


class PacketError(ValueError):
    """The packets cannot be built as asked; the message says why."""


def tokens_of(value) -> int:
    """Tokens as the offline policy counts them: characters / 4."""
    return len(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)) // 4


def foreign_words(slug: str) -> list[str]:
    table = yaml.safe_load(FOREIGN.read_text())
    return list(table.get(slug, table["default"]))


def day_ticks(day: int) -> tuple[int, int]:
    return (day - 1) * TICKS_PER_DAY, day * TICKS_PER_DAY - 1


def _clip(text: str) -> str:
    return text if len(text) <= ROW_CHARS else text[: ROW_CHARS - 1].rstrip() + "…"


def _thin(rows: list[dict], keep: int) -> list[dict]:
    """`keep` rows spread evenly over `rows` (first and last kept), in order."""
    if keep >= len(rows):
        return rows
    if keep <= 0:
        return []
    if keep == 1:
        return rows[:1]
    step = (len(rows) - 1) / (keep - 1)
    return [rows[round(i * step)] for i in range(keep)]


def _fit(rows: list[dict], budget: int) -> list[dict]:
    """As many rows, evenly spread, as fit `budget` tokens."""
    keep = len(rows)
    while keep and tokens_of(_thin(rows, keep)) > budget:
        keep = max(0, int(keep * min(0.95, budget / max(1, tokens_of(_thin(rows, keep))))))
    return _thin(rows, keep)


def agent_day(run: Run, agent: AgentState, day: int, *, cast: list[str], budget: int = PACKET_TOKENS) -> dict:
    first, last = day_ticks(day)
    last = min(last, max(run.tick - 1, first))
    rungs = run.scenario.rung_specs()
    rung = state_at(agent, last)[0]
    name = agent.persona.display_name
    known = [n for n, _, _ in trust_at(agent, last, rung, rungs)]
    if knows(rungs, rung, OWN_NAME):
        known = [name, *known]
    rows = [{"id": f"m{i}", "tick": t, "kind": k, "own": k in OWN_KINDS, "text": _clip(text)}
            for i, t, k, text in Memory.objects.filter(agent=agent, tick__gte=first, tick__lte=last)
            .order_by("id").values_list("id", "tick", "kind", "text")]
    used = Counter(i for ids in LLMCall.objects.filter(run=run, agent=agent, purpose="action", tick__gte=first,
                                                       tick__lte=last).values_list("recalled", flat=True)
                   for i in ids or ())
    day_ids = {r["id"] for r in rows}
    recalled_ids = [i for i, _ in sorted(used.items(), key=lambda kv: (-kv[1], kv[0])) if f"m{i}" not in day_ids]
    recalled = [{"id": f"m{i}", "tick": t, "kind": k, "text": _clip(text)}
                for i, t, k, text in Memory.objects.filter(id__in=recalled_ids[:RECALLED_MAX]).order_by("id")
                .values_list("id", "tick", "kind", "text")]
    packet = {
        "id": f"r{run.pk}.d{day}.{agent.persona.key}", "run": run.pk, "day": day, "ticks": [first, last],
        "agent": {"key": agent.persona.key, "name": name, "rung": rung, "knows_own_name": name in known,
                  "history": agent.persona.history, "secret": agent.persona.secret, "fear": agent.persona.fear},
        "world": {"scenario": run.scenario.slug, "foreign_words": foreign_words(run.scenario.slug)},
        "cast": cast, "names_known": known, "items": [], "recalled": recalled, "cut": "",
    }
    return bounded(packet, rows, budget)


def bounded(packet: dict, rows: list[dict], budget: int) -> dict:
    """`packet` with as many of `rows` as fit `budget` tokens, the cut stated. Pure."""
    packet = {**packet, "items": [], "cut": ""}
    recalled = packet["recalled"]
    while recalled and tokens_of(packet) > budget // 3:  # recalled rows take a third of it at most
        recalled = recalled[:-1]
        packet["recalled"] = recalled
    room = budget - tokens_of(packet) - 60  # 60: the cut's own sentence
    own = [r for r in rows if r["own"]]
    other = [r for r in rows if not r["own"]]
    kept_own = _fit(own, room)
    kept_other = _fit(other, room - tokens_of(kept_own))
    kept = sorted(kept_own + kept_other, key=lambda r: int(r["id"][1:]))
    packet["items"] = kept
    packet["cut"] = ("nothing cut: every row of the day" if len(kept) == len(rows) else
                     f"cut to {budget} tokens: {len(kept_own)} of its {len(own)} own rows and {len(kept_other)} of "
                     f"its {len(other)} other rows, each set thinned evenly over the day; rows clipped to "
                     f"{ROW_CHARS} characters")
    return packet


def day_packets(run: Run, day: int, agent_keys: list[str] | None = None, budget: int = PACKET_TOKENS) -> list[dict]:
    """One packet per agent (persona-key order) that has rows that day; `agent_keys` narrows them."""
    if day < 1:
        raise PacketError(f"day: a day from 1, not {day}")
    first, _ = day_ticks(day)
    if first >= run.tick:
        raise PacketError(f"day {day}: run {run.pk} has committed {run.tick} ticks, so day {day} has not begun "
                          f"(days have {TICKS_PER_DAY} ticks)")
    agents = AgentState.objects.filter(run=run).select_related("persona", "run__scenario").order_by("persona__key")
    if agent_keys:
        unknown = sorted(set(agent_keys) - {a.persona.key for a in agents})
        if unknown:
            raise PacketError(f"agents: run {run.pk} has no agent {', '.join(unknown)}")
        agents = [a for a in agents if a.persona.key in agent_keys]
    cast = sorted(run.scenario.personas.values_list("display_name", flat=True))
    packets = [agent_day(run, agent, day, cast=cast, budget=budget) for agent in agents]
    return [p for p in packets if p["items"]]
