"""A draft's offline day runs in a scratch database: the main database gains no row from it and
stays free for writers the whole time (a writer that may wait 50 ms at most never finds it locked),
and the main connection is back in place afterwards, even when the day raises."""
import sqlite3
import threading
import time

import pytest
from django.db import connection, connections

from voyage.drafting import scratch
from voyage.drafting.pipeline import draft_world
from voyage.gateway.offline import OfflineModel
from voyage.models import Event, Run
from world.drafting.limits import DraftAsk
from world.models import Scenario

PARAGRAPH = "A small island off Mayo with a harbour, a chapel and a pub."


class Writer(threading.Thread):
    """Takes and releases SQLite's write lock on the main database file again and again."""

    def __init__(self, path: str):
        super().__init__(daemon=True)
        self.path, self.done, self.locked, self.wrote = path, threading.Event(), 0, 0

    def run(self):
        raw = sqlite3.connect(self.path, timeout=0.05, isolation_level=None)
        while not self.done.is_set():
            try:
                raw.execute("BEGIN IMMEDIATE")
                raw.execute("COMMIT")
                self.wrote += 1
            except sqlite3.OperationalError:
                self.locked += 1
            time.sleep(0.01)
        raw.close()


@pytest.mark.django_db(transaction=True)
def test_the_offline_day_writes_nothing_to_the_main_database_and_never_locks_it():
    before = (Scenario.objects.count(), Run.objects.count(), Event.objects.count())
    writer = Writer(connection.settings_dict["NAME"])
    writer.start()
    try:
        report = draft_world(DraftAsk(PARAGRAPH, people=4, rooms=5), OfflineModel(seed=0), drafted_by="scripted",
                             budget=1)
    finally:
        writer.done.set()
        writer.join()
    assert report.passed and report.day.ticks == 480 and report.day.actions > 0
    assert (Scenario.objects.count(), Run.objects.count(), Event.objects.count()) == before
    assert writer.locked == 0 and writer.wrote > 20, (writer.locked, writer.wrote)


@pytest.mark.django_db
def test_the_main_connection_is_back_after_a_day_that_raised():
    main = connections["default"]
    with pytest.raises(RuntimeError), scratch.scratch_database() as db:
        assert connections["default"] is db and not Scenario.objects.exists()
        raise RuntimeError("the day failed")
    assert connections["default"] is main and Scenario.objects.filter(slug="1912").exists()


def test_a_virtual_tables_shadow_tables_are_left_to_it():
    rows = [("table", "memory_stream", "CREATE TABLE memory_stream (id integer)"),
            ("table", "memory_fts", "CREATE VIRTUAL TABLE memory_fts USING fts5(words)"),
            ("table", "memory_fts_data", "CREATE TABLE 'memory_fts_data'(id INTEGER PRIMARY KEY)"),
            ("table", "sqlite_sequence", "CREATE TABLE sqlite_sequence(name,seq)"),
            ("index", "memory_by_agent", "CREATE INDEX memory_by_agent ON memory_stream (id)")]
    assert scratch._statements(rows) == ["CREATE TABLE memory_stream (id integer)",
                                         "CREATE VIRTUAL TABLE memory_fts USING fts5(words)",
                                         "CREATE INDEX memory_by_agent ON memory_stream (id)"]


@pytest.mark.django_db
def test_a_main_database_that_is_not_sqlite_gets_the_same_schema_from_a_migrated_template():
    """The path a PostgreSQL main database takes (migrated once per process), checked against the
    schema this SQLite test database holds: the same statements."""
    with sqlite3.connect(scratch._migrated_template()) as raw:
        from_template = scratch._statements(raw.execute(scratch.SCHEMA).fetchall())
    assert sorted(from_template) == sorted(scratch.main_schema())
