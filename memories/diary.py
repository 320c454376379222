"""The diary (seed 001): at nightfall each living agent writes one dated entry, with its mood and
where it is, from its own rows of the day. Scenario.start_date is the date of day 1."""
from __future__ import annotations

from datetime import timedelta
from typing import NamedTuple

from memories.identity import identity_text
from memories.models import DiaryEntry, Memory
from memories.writing import DIARY, messages, row_line, subject_of
from voyage.gateway.base import DIARY as DIARY_PURPOSE, ModelRequest
from voyage.gateway.hints import RowsHints
from voyage.gateway.json_extract import parse_json_object
from voyage.models import LLMCall
from world.time import TICKS_PER_DAY, day_of

DAY_ROWS = 800  # a day is ~500 rows per agent; read at most this many of the newest
DIARY_ROWS = 25


class DayRow(NamedTuple):
    """One of an agent's rows of the day (a tuple too: the offline model's hints read it so)."""
    tick: int
    kind: str
    importance: int
    text: str


def rows_of_day(world, w, agent) -> list[DayRow]:
    """The agent's own rows since this day's dawn, committed and buffered. One indexed query for the
    agent's newest rows: the cost does not grow with the stream."""
    start = (w.tick // TICKS_PER_DAY) * TICKS_PER_DAY
    committed = list(Memory.objects.filter(agent_id=agent.id).order_by("-id")
                     .values_list("tick", "kind", "importance", "text")[:DAY_ROWS])[::-1]
    rows = [DayRow(*r) for r in committed if r[0] >= start]
    rows += [DayRow(m.tick, m.kind, m.importance, m.text) for m in w.memories_of.get(agent.id, ())]
    return rows


def diary_date(world, tick: int):
    return world.scenario.start_date + timedelta(days=day_of(tick) - 1)


def write_diaries(world, w, gateway, day_rows: dict) -> list[DiaryEntry]:
    asked = []
    for a in sorted(world.living(), key=lambda a: a.persona.key):
        rows = day_rows[a.id]
        picked = sorted(sorted(rows, key=lambda r: (-r.importance, -r.tick))[:DIARY_ROWS], key=lambda r: r.tick)
        where = world.room_name(a.location_id)
        lines = [row_line(r.tick, r.text) for r in picked] + [f"You are in the {where}."]
        request = ModelRequest(purpose=DIARY_PURPOSE, messages=messages(identity_text(a, world), DIARY, lines),
                               tick=w.tick, agent_id=a.id, agent_key=a.persona.key,
                               hints=RowsHints(rows=tuple(picked), subject=subject_of(a, world), location=where))
        asked.append((a, request))
    answers = gateway.complete_many([r for _, r in asked]) if asked else []
    written = []
    for (a, request), answer in zip(asked, answers):
        if answer.failed:
            w.call(request, answer, LLMCall.SKIPPED)
            continue
        data = parse_json_object(answer.text) or {}
        entry = DiaryEntry(run_id=world.run.pk, agent_id=a.id, date=diary_date(world, w.tick), day=day_of(w.tick),
                           tick=w.tick, mood=str(data.get("mood") or "unsettled")[:60], location_id=a.location_id,
                           text=str(data.get("entry") or answer.text).strip())
        w.others.append(entry)
        w.call(request, answer, LLMCall.OK)
        written.append(entry)
    return written
