"""Total recall (seed 002): full-text search over an agent's raw stream — SQLite FTS5, PostgreSQL
full-text search when on PostgreSQL — ranked as the generative-agents paper scores memories:
recency, importance and relevance, each normalised to [0, 1] and weighted (seed 003's weights).

`recall` is the one entry point: the context builder calls it with the current situation's words
(people present, room, props) and the inspector and API call it with a staff member's query.
The cost is bounded whatever the stream's size: only the newest `candidates` matches are scored.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from django.db import connection

from memories.fts import tagged

RECENCY_DECAY = 0.995  # per tick (3 sim-minutes): about 0.9 per simulated hour
WEIGHTS = (0.5, 2.0, 3.0)  # recency, importance, relevance (seed 003)
CANDIDATES = 40


@dataclass(frozen=True)
class Recalled:
    id: int
    tick: int
    kind: str
    importance: int
    text: str
    relevance: float  # higher is more relevant (the engine's own scale)
    score: float = 0.0


# Words too common aboard to tell one memory from another. Searching distinctive words rather than
# whole phrases also keeps the query cheap: a phrase of common words reads long position lists.
STOP = frozenset("""a an and the of to in into on at for from with by is are was were be it its this that
you your he she they them his her their someone unknown room deck class first second third""".split())


def terms_of(query) -> list[str]:
    """The distinctive words of a query string, or of a list of names (people, room, items)."""
    text = query if isinstance(query, str) else " ".join(q for q in query if q)
    seen = []
    for word in re.findall(r"\w+", text.lower()):
        if len(word) > 2 and word not in STOP and word not in seen:
            seen.append(word)
    return seen


def recall(agent_id: int, query, *, k: int = 5, before_id: int | None = None, now_tick: int | None = None,
           candidates: int = CANDIDATES) -> list[Recalled]:
    """Up to k of the agent's own rows matching any of the query's words or phrases, best first.
    `before_id` leaves out newer rows (the context builder passes the oldest hot-window row)."""
    terms = terms_of(query)
    if not terms or k <= 0:
        return []
    if connection.vendor == "postgresql":
        hits = _search_postgres(agent_id, terms, before_id, candidates)
    else:
        hits = _search_sqlite(agent_id, terms, before_id, candidates)
    if now_tick is None:
        now_tick = max((h.tick for h in hits), default=0)
    return rank(hits, now_tick)[:k]


def rank(hits: list[Recalled], now_tick: int) -> list[Recalled]:
    """Score = w_rec * recency + w_imp * importance + w_rel * relevance, each min-max normalised
    over the candidates (Park et al. 2023). Pure; ties go to the newer row."""
    if not hits:
        return []
    rec = [RECENCY_DECAY ** max(0, now_tick - h.tick) for h in hits]
    imp = [h.importance for h in hits]
    rel = [h.relevance for h in hits]

    def norm(values):
        lo, hi = min(values), max(values)
        return [1.0 if hi == lo else (v - lo) / (hi - lo) for v in values]

    wr, wi, wl = WEIGHTS
    scored = [
        Recalled(h.id, h.tick, h.kind, h.importance, h.text, h.relevance, round(wr * a + wi * b + wl * c, 6))
        for h, a, b, c in zip(hits, norm(rec), norm(imp), norm(rel))
    ]
    return sorted(scored, key=lambda r: (-r.score, -r.id))


def _fts_phrase(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _search_sqlite(agent_id, terms, before_id, limit) -> list[Recalled]:
    # No bm25() here: its statistics read every match in the table, so its cost would grow with the
    # stream. The index holds each word tagged with its agent (memories/fts.py): the newest `limit`
    # of the agent's matches come straight off the agent's own lists (rowid order); relevance is
    # scored on those few in Python (see overlap). The join on agent_id keeps the answer to the
    # agent's rows whatever the index holds.
    match = "words : (" + " OR ".join(_fts_phrase(tagged(agent_id, t)) for t in terms) + ")"
    bound = "AND rowid < %s" if before_id else ""
    params = [match] + ([before_id] if before_id else []) + [limit, agent_id]
    sql = f"""
        WITH hits AS (SELECT rowid AS id FROM memory_fts
                      WHERE memory_fts MATCH %s {bound} ORDER BY rowid DESC LIMIT %s)
        SELECT m.id, m.tick, m.kind, m.importance, m.text
        FROM hits JOIN memory_stream m ON m.id = hits.id WHERE m.agent_id = %s ORDER BY m.id DESC"""
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return [Recalled(i, t, kind, imp, text, overlap(text, terms)) for i, t, kind, imp, text in cur.fetchall()]


def overlap(text: str, terms: list[str]) -> float:
    """Relevance: how many of the query's words the row contains (a word's stem is enough)."""
    low = text.lower()
    return float(sum(1 for t in terms if (t[:-1] if len(t) > 4 and t.endswith("s") else t) in low))


def _search_postgres(agent_id, terms, before_id, limit) -> list[Recalled]:
    query = " || ".join(["phraseto_tsquery('english', %s)"] * len(terms))
    bound = "AND id < %s" if before_id else ""
    sql = f"""
        SELECT id, tick, kind, importance, text, ts_rank(to_tsvector('english', text), q) AS rank
        FROM memory_stream, ({'SELECT ' + query + ' AS q'}) AS query
        WHERE agent_id = %s {bound} AND to_tsvector('english', text) @@ q
        ORDER BY id DESC LIMIT %s"""
    params = list(terms) + [agent_id] + ([before_id] if before_id else []) + [limit]
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return [Recalled(i, t, kind, imp, text, float(rank)) for i, t, kind, imp, text, rank in cur.fetchall()]
