from django.apps import AppConfig


class PoimenConfig(AppConfig):
    name = "poimen"
    verbose_name = "poimen"
    default_auto_field = "django.db.models.BigAutoField"
