from django.apps import AppConfig


class InstrumentsConfig(AppConfig):
    """Interviews (ask an agent a question as it stood at any tick) and interventions."""

    name = "voyage.instruments"
    label = "instruments"
    default_auto_field = "django.db.models.BigAutoField"
