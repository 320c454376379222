from django.apps import AppConfig


class VoyageConfig(AppConfig):
    name = "voyage"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Imports here, not at the top: they load models, which Django imports only after every app's
        # config (an AppConfig module may import no model).
        # A tick worker starting picks up runs whose worker vanished (voyage.runs.tasks.rescue_runs).
        from django_q.signals import post_spawn

        from voyage.runs.tasks import on_worker_spawn

        post_spawn.connect(on_worker_spawn, dispatch_uid="voyage-rescue-on-spawn")

        # loaddata of a run's fixture turns its memory-row numbers back into ids (voyage/export/rows.py).
        from voyage.export import rows

        rows.connect()
