"""An interview battery put to every agent of a run at a tick, each answer turned into an evidence
packet: the answer (as the agent's own line) beside its memory at that tick (its hot window and
the rows the question recalled), its persona, its rung and the names it may use. The answers are
interviews (voyage.instruments.interviews): recorded as such, and they leave the run as it was."""
from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import yaml
from django.db import transaction

from memories.as_of import living_at, mind_at
from voyage.calls.record import call_record
from voyage.instruments.interviews import interview_gateway, interview_request
from voyage.instruments.models import Interview
from voyage.judging.packets import PACKET_TOKENS, ROW_CHARS, bounded, foreign_words
from voyage.models import LLMCall, Run
from world.rules.ladder import OWN_NAME, knows

BATTERIES = Path(__file__).parent / "batteries"
CATEGORIES = ("self_knowledge", "memory", "plans", "reactions", "reflections")


class BatteryError(ValueError):
    """The battery cannot be used; the message names what is wrong."""


@dataclass(frozen=True)
class Question:
    id: str
    category: str
    text: str


def battery_for(slug: str) -> Path:
    own = BATTERIES / f"{slug}.yaml"
    return own if own.exists() else BATTERIES / "any.yaml"


def load_battery(path: str | Path) -> tuple[Question, ...]:
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise BatteryError(f"{path}: cannot read the battery ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        raise BatteryError(f"{path}: not YAML ({exc})") from None
    items = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise BatteryError(f"{path}: questions: give a list of {{id, category, text}}")
    out, seen = [], set()
    for i, q in enumerate(items):
        if not isinstance(q, dict) or not all(isinstance(q.get(k), str) and q[k].strip() for k in ("id", "category",
                                                                                                     "text")):
            raise BatteryError(f"{path}: questions[{i}]: give id, category and text")
        if q["category"] not in CATEGORIES:
            raise BatteryError(f"{path}: questions[{i}].category: {q['category']!r} is not one of "
                               f"{', '.join(CATEGORIES)}")
        if q["id"] in seen:
            raise BatteryError(f"{path}: questions[{i}].id: {q['id']!r} is given twice")
        seen.add(q["id"])
        out.append(Question(q["id"], q["category"], q["text"].strip()))
    return tuple(out)


def _row(row, own: bool = False) -> dict:
    text = row.text if len(row.text) <= ROW_CHARS else row.text[: ROW_CHARS - 1] + "…"
    return {"id": f"m{row.id}", "tick": row.tick, "kind": row.kind, "own": own, "text": text}


def ask_battery(run: Run, questions: tuple[Question, ...], tick: int, agent_keys=None,
                packet_tokens: int = PACKET_TOKENS) -> list[dict]:
    """Every question to every agent alive at `tick` (persona-key order); one packet per answer, of
    half `packet_tokens` (two go to a prompt)."""
    rungs = run.scenario.rung_specs()
    cast = sorted(run.scenario.personas.values_list("display_name", flat=True))
    packets = []
    with closing(interview_gateway(run)) as gateway:
        for agent in living_at(run, tick):
            if agent_keys and agent.persona.key not in agent_keys:
                continue
            for q in questions:
                mind = mind_at(agent, tick, q.text)
                request = interview_request(agent, mind, q.text)
                answer = gateway.complete(request)
                with transaction.atomic():
                    call = call_record(run.pk, request, answer, LLMCall.OK if not answer.failed else LLMCall.ERROR)
                    call.save()
                    interview = Interview.objects.create(run=run, agent=agent, tick=tick, rung=mind.rung,
                                                         question=q.text, call=call)
                packets.append(answer_packet(run, agent, mind, q, interview, answer.text or "", cast, rungs,
                                             packet_tokens))
    return packets


def answer_packet(run, agent, mind, q: Question, interview, text: str, cast, rungs,
                  packet_tokens: int = PACKET_TOKENS) -> dict:
    name = agent.persona.display_name
    known = [n for n, _, _ in mind.trust]
    if knows(rungs, mind.rung, OWN_NAME):
        known = [name, *known]
    said = {"id": f"i{interview.pk}", "tick": mind.tick, "kind": "answer", "own": True,
            "text": 'You say: "' + text.replace('"', "'")[:1200] + '"'}
    packet = {
        "id": f"r{run.pk}.t{mind.tick}.{agent.persona.key}.{q.id}", "run": run.pk, "ticks": [mind.tick, mind.tick],
        "question": {"id": q.id, "category": q.category, "text": q.text},
        "agent": {"key": agent.persona.key, "name": name, "rung": mind.rung, "knows_own_name": name in known,
                  "history": agent.persona.history, "secret": agent.persona.secret, "fear": agent.persona.fear},
        "world": {"scenario": run.scenario.slug, "foreign_words": foreign_words(run.scenario.slug)},
        "cast": cast, "names_known": known, "recalled": [_row(r) for r in mind.recalled], "cut": "",
    }
    rows = [_row(r) for r in mind.rows] + [said]
    out = bounded(packet, rows, packet_tokens // 2)  # two to a prompt
    if said not in out["items"]:  # the answer is what is judged: it always stays
        out["items"] = [*out["items"], said]
    return out
