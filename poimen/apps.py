from django.apps import AppConfig


class PoimenConfig(AppConfig):
    name = "poimen"
    verbose_name = "poimen"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from axes.signals import user_locked_out

        from poimen import checks  # noqa: F401 (registers check --deploy's own warnings)
        from poimen.lockout import record_lockout

        user_locked_out.connect(record_lockout, dispatch_uid="poimen_record_lockout")
