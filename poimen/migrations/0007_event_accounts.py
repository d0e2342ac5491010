"""Accounts on the audit log: user_added, login_locked_out, login_unlocked; and on PostgreSQL,
TRUNCATE of the event table refused as UPDATE and DELETE are (0002)."""

from django.db import migrations, models

# A statement-level trigger: TRUNCATE fires no row triggers. The function is 0002's; for a
# TRUNCATE its TG_OP reads 'TRUNCATE'. Like every trigger, it stands aside only for a superuser
# who sets session_replication_role = replica, deliberately.
CREATE = """
CREATE TRIGGER poimen_event_no_truncate
    BEFORE TRUNCATE ON poimen_event
    FOR EACH STATEMENT EXECUTE FUNCTION poimen_event_append_only();
"""
DROP = "DROP TRIGGER IF EXISTS poimen_event_no_truncate ON poimen_event;"


def run_on_postgresql(sql):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return apply


class Migration(migrations.Migration):
    dependencies = [("poimen", "0006_kindpolicy_defaults_from_settings")]

    operations = [
        migrations.AlterField(
            model_name="event",
            name="type",
            field=models.CharField(
                choices=[
                    ("derived_excluded", "Derived Excluded"),
                    ("filter_disabled", "Filter Disabled"),
                    ("threshold_changed", "Threshold Changed"),
                    ("status_changed", "Status Changed"),
                    ("review_confirmed", "Review Confirmed"),
                    ("review_false_positive", "Review False Positive"),
                    ("review_false_negative", "Review False Negative"),
                    ("review_undone", "Review Undone"),
                    ("artifact_registered", "Artifact Registered"),
                    ("records_refiltered", "Records Refiltered"),
                    ("user_added", "User Added"),
                    ("login_locked_out", "Login Locked Out"),
                    ("login_unlocked", "Login Unlocked"),
                ],
                max_length=40,
            ),
        ),
        migrations.RunPython(run_on_postgresql(CREATE), run_on_postgresql(DROP)),
    ]
