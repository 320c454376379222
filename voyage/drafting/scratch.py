"""A scratch database for a draft's offline day: an in-memory SQLite database with the main
database's schema, standing in for `default` in this thread only while the day runs, then thrown
away. The main database is only read (its schema, once per day), never written or locked, so the
web and the worker go on while a draft proves its day.

Everything the engine does goes through `django.db.connections["default"]` (the ORM,
`transaction.atomic()`, `django.db.connection`), and Django keeps one connection per alias per
thread: putting the scratch connection under that alias for the length of the day moves the whole
day there, with no router and no `using=` in the engine. Other threads keep the main database.

The schema is copied from the main database's own `sqlite_master` (a few milliseconds), so it is
exactly the schema the migrations built, full-text index and triggers included. A main database
that is not SQLite has no such copy; its schema is migrated into a template SQLite file once per
process instead (a few seconds), and each day copies from that."""
from __future__ import annotations

import sqlite3
import tempfile
from contextlib import contextmanager
from pathlib import Path

from django.core.management import call_command
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.utils import ConnectionHandler

SQLITE = "django.db.backends.sqlite3"
_template: dict[str, str] = {}  # a migrated template file's path, made once per process (not SQLite)


@contextmanager
def scratch_database():
    """Within the block, `default` in this thread is a fresh in-memory database with the main
    database's schema and no rows; on leaving it, the main connection is back and the scratch is
    gone, whatever happened inside."""
    schema = main_schema()
    with _standing_in(":memory:") as scratch:
        with scratch.cursor() as cursor:
            for statement in schema:
                cursor.execute(statement)
        yield scratch


@contextmanager
def _standing_in(name: str):
    """A new SQLite connection to `name` as `default` in this thread, for the block."""
    main = connections[DEFAULT_DB_ALIAS]
    scratch = ConnectionHandler({DEFAULT_DB_ALIAS: {"ENGINE": SQLITE, "NAME": name}})[DEFAULT_DB_ALIAS]
    connections[DEFAULT_DB_ALIAS] = scratch
    try:
        yield scratch
    finally:
        connections[DEFAULT_DB_ALIAS] = main
        scratch.close()


def main_schema() -> list[str]:
    """The statements that rebuild the main database's schema (tables, indexes, triggers, views),
    in the order they were made. A virtual table's shadow tables are left out: it makes them."""
    main = connections[DEFAULT_DB_ALIAS]
    if main.vendor == "sqlite" and not main.is_in_memory_db():
        with main.cursor() as cursor:
            return _statements(cursor.execute(SCHEMA).fetchall())
    with sqlite3.connect(_migrated_template()) as raw:
        return _statements(raw.execute(SCHEMA).fetchall())


SCHEMA = "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"


def _statements(rows) -> list[str]:
    virtual = [name for kind, name, sql in rows if kind == "table" and sql.upper().startswith("CREATE VIRTUAL")]
    return [sql for kind, name, sql in rows
            if not name.startswith("sqlite_") and not any(name.startswith(v + "_") for v in virtual)]


def _migrated_template() -> str:
    """A SQLite file migrated to the project's schema, for a main database that is not SQLite."""
    if "path" not in _template:
        path = str(Path(tempfile.mkdtemp(prefix="voyage-scratch-")) / "template.sqlite3")
        with _standing_in(path):
            call_command("migrate", verbosity=0, interactive=False)
        _template["path"] = path
    return _template["path"]
