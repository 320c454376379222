from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memories"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Imported here (Django's place for wiring signals once every app is loaded).
        from memories.fts import connect_signal

        connect_signal()  # SQLite connections get the function the recall index's triggers call
