"""The recall index on SQLite, rebuilt with each word tagged with its agent (memories/fts.py): a
query reads the agent's own lists, not every agent's. PostgreSQL's index is unchanged."""
from importlib import import_module

from django.db import migrations

from memories.fts import FUNCTION, register

OLD = import_module("memories.migrations.0004_recall_index").SQLITE_UP  # the index as 0004 made it
NEW = [
    "CREATE VIRTUAL TABLE memory_fts USING fts5(words, content='', tokenize='porter unicode61')",
    f"INSERT INTO memory_fts(rowid, words) SELECT id, {FUNCTION}(agent_id, text) FROM memory_stream",
    f"""CREATE TRIGGER memory_fts_insert AFTER INSERT ON memory_stream BEGIN
         INSERT INTO memory_fts(rowid, words) VALUES (new.id, {FUNCTION}(new.agent_id, new.text));
       END""",
    f"""CREATE TRIGGER memory_fts_delete AFTER DELETE ON memory_stream BEGIN
         INSERT INTO memory_fts(memory_fts, rowid, words) VALUES ('delete', old.id, {FUNCTION}(old.agent_id, old.text));
       END""",
]
DROP = [
    "DROP TRIGGER IF EXISTS memory_fts_delete",
    "DROP TRIGGER IF EXISTS memory_fts_insert",
    "DROP TABLE IF EXISTS memory_fts",
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor != "sqlite":
            return
        register(schema_editor.connection)
        for sql in statements:
            schema_editor.execute(sql)
    return apply


class Migration(migrations.Migration):
    dependencies = [("memories", "0008_alter_memory_kind")]

    operations = [migrations.RunPython(_run(DROP + NEW), _run(DROP + OLD))]
