from django.apps import AppConfig


class VoyageConfig(AppConfig):
    name = "voyage"
    default_auto_field = "django.db.models.BigAutoField"
