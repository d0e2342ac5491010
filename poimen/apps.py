from django.apps import AppConfig

from poimen.allocator import use_checking_allocator


class PoimenConfig(AppConfig):
    name = "poimen"
    verbose_name = "poimen"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from axes.signals import user_locked_out
        from django.contrib.auth.signals import user_logged_in

        from poimen import checks  # noqa: F401 (registers check --deploy's own warnings)
        from poimen.decision.index_version import connect_signals
        from poimen.views.accounts import note_one_time_password
        from poimen.views.lockout import record_lockout

        user_locked_out.connect(record_lockout, dispatch_uid="poimen_record_lockout")
        user_logged_in.connect(note_one_time_password, dispatch_uid="poimen_one_time_password")
        # a write of an artifact or a policy tells the process's index to read its state again
        connect_signals()
        # a batch's arrays kept in the heap from one batch to the next (poimen/allocator.py)
        use_checking_allocator()
