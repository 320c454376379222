"""The full-text index behind total recall: an FTS5 table on SQLite (contentless: it keeps only the
index, the text stays in memory_stream; triggers keep it in step), a GIN expression index on
PostgreSQL. Raw rows are never deleted by the engine, but deleting a run cascades: the delete
trigger keeps the index honest then."""
from django.db import migrations

SQLITE_UP = [
    "CREATE VIRTUAL TABLE memory_fts USING fts5(text, agent, content='', tokenize='porter unicode61')",
    "INSERT INTO memory_fts(rowid, text, agent) SELECT id, text, agent_id FROM memory_stream",
    """CREATE TRIGGER memory_fts_insert AFTER INSERT ON memory_stream BEGIN
         INSERT INTO memory_fts(rowid, text, agent) VALUES (new.id, new.text, new.agent_id);
       END""",
    """CREATE TRIGGER memory_fts_delete AFTER DELETE ON memory_stream BEGIN
         INSERT INTO memory_fts(memory_fts, rowid, text, agent) VALUES ('delete', old.id, old.text, old.agent_id);
       END""",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS memory_fts_delete",
    "DROP TRIGGER IF EXISTS memory_fts_insert",
    "DROP TABLE IF EXISTS memory_fts",
]
POSTGRES_UP = ["CREATE INDEX memory_text_search ON memory_stream USING GIN (to_tsvector('english', text))"]
POSTGRES_DOWN = ["DROP INDEX IF EXISTS memory_text_search"]


def _run(statements_by_vendor):
    def apply(apps, schema_editor):
        for sql in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)
    return apply


class Migration(migrations.Migration):
    dependencies = [("memories", "0003_memory_cognition")]

    operations = [
        migrations.RunPython(_run({"sqlite": SQLITE_UP, "postgresql": POSTGRES_UP}),
                             _run({"sqlite": SQLITE_DOWN, "postgresql": POSTGRES_DOWN})),
    ]
