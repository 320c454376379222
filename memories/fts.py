"""The words of the recall index on SQLite, tagged with their agent.

Each word of a row goes into the FTS5 index as `q<agent id>x<word>` ("q12xcorridor"), so the
index keeps one short list per agent and word. A recall query asks for the agent's own tagged
words and reads only that agent's rows: its cost follows the agent's stream, not everyone's (with
one list per word over every agent, recall's share of a tick grew with the world: issue 21).

The tag is all consonants and digits, so the porter stemmer measures a tagged word as it measures
the bare word: every word a query can ask for matches the rows it matched untagged, but for a few
three-letter words the bare stemmer cut to two letters ("one" no longer matches "on";
tests/memories/test_memory_recall.py checks this on every installed scenario's texts). A word is
a run of letters, digits and combining diacritical marks, as unicode61 reads text; where the two
disagree on some rarer character a word only loses its tag, and recall's join on the row's agent
keeps every other agent's rows out whatever the index holds.
"""
from __future__ import annotations

import re

from django.db.backends.signals import connection_created

FUNCTION = "voyage_tagged"
WORD = re.compile(r"(?:[^\W_]|[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f])+")


def tagged(agent_id, text) -> str:
    if text is None:
        return ""
    prefix = f"q{int(agent_id)}x"
    return WORD.sub(lambda m: prefix + m.group(0), text)


def register(connection) -> None:
    """Give a SQLite connection (a Django one, opened if need be) the function the index's triggers call."""
    if connection.vendor == "sqlite":
        connection.ensure_connection()
        connection.connection.create_function(FUNCTION, 2, tagged, deterministic=True)


def _on_connect(sender, connection, **kwargs) -> None:
    register(connection)  # already open: ensure_connection does nothing


def connect_signal() -> None:
    connection_created.connect(_on_connect, dispatch_uid="memories.fts")
