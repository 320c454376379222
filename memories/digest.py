"""What a run's agents remember, by content: its summaries and eras (with the rows they cover, as
positions in the agent's own stream, what folds into what, and the tick each shows from), dreams
(with theirs), diary and trust history —
no database ids, no wall-clock times — and one hash per table. Two runs of the same seed remember
the same when these are equal, whichever process did their memory jobs and however often it died."""
from __future__ import annotations

import hashlib
import json

from memories.models import DiaryEntry, Dream, Memory, MemorySummary, TrustHistory


def memory_tables(run) -> dict[str, list]:
    position = {}  # row id -> (agent, its place in that agent's stream)
    seen = {}
    for row_id, agent_id in Memory.objects.filter(run=run).order_by("id").values_list("id", "agent_id").iterator(
            chunk_size=5000):
        position[row_id] = seen.get(agent_id, 0)
        seen[agent_id] = position[row_id] + 1

    def at(row_id):
        return None if row_id is None else position.get(row_id)

    summaries = list(MemorySummary.objects.filter(run=run).values_list(
        "id", "agent__persona__key", "level", "first_row", "last_row", "row_count", "tick", "text", "folded_into_id",
        "shown_from"))
    named = {sid: (key, level, at(first)) for sid, key, level, first, *_ in summaries}
    return {
        "summaries": sorted([key, level, at(first), at(last), count, tick, text, named.get(into), shown]
                            for _, key, level, first, last, count, tick, text, into, shown in summaries),
        "dreams": sorted([key, tick, at(first), at(last), identity, places, people, rooms, shown]
                         for key, tick, first, last, identity, places, people, rooms, shown in Dream.objects
                         .filter(run=run).values_list("agent__persona__key", "tick", "first_row", "last_row",
                                                      "identity", "places", "people", "rooms_known", "shown_from")),
        "diary": sorted([key, str(date), day, tick, mood, room, text] for key, date, day, tick, mood, room, text in
                        DiaryEntry.objects.filter(run=run).values_list("agent__persona__key", "date", "day", "tick",
                                                                        "mood", "location__key", "text")),
        "trust_history": sorted(list(r) for r in TrustHistory.objects.filter(entry__run=run).values_list(
            "entry__agent__persona__key", "entry__other__persona__key", "tick", "score", "label", "emotional_tone",
            "rationale")),
    }


def memory_sha256(run) -> dict[str, str]:
    """One hash per table of `memory_tables`, and how many rows each has."""
    out = {}
    for name, rows in memory_tables(run).items():
        digest = hashlib.sha256()
        for row in rows:
            digest.update(json.dumps(row, ensure_ascii=False, default=str).encode())
            digest.update(b"\n")
        out[name] = f"{len(rows)}:{digest.hexdigest()[:16]}"
    return out
