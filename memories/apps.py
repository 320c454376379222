from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memories"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Imported here (Django's place for wiring signals once every app is loaded).
        from memories import compaction, dreams  # noqa: F401 (they register the memory jobs they do: job_records)
        from memories.fts import connect_signal

        connect_signal()  # SQLite connections get the function the recall index's triggers call
