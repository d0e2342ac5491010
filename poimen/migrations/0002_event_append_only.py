"""On PostgreSQL, make the audit log append-only in the database itself, not only in the app."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION poimen_event_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'poimen_event is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$ LANGUAGE plpgsql;
CREATE TRIGGER poimen_event_append_only
    BEFORE UPDATE OR DELETE ON poimen_event
    FOR EACH ROW EXECUTE FUNCTION poimen_event_append_only();
"""

DROP = """
DROP TRIGGER IF EXISTS poimen_event_append_only ON poimen_event;
DROP FUNCTION IF EXISTS poimen_event_append_only();
"""


def run_on_postgresql(sql):
    def apply(apps, schema_editor):
        # SQLite has no plpgsql; there the app's read-only admin is the only guard.
        if schema_editor.connection.vendor == "postgresql":
            # A plain cursor: the function body's '%' is plpgsql's, not a query placeholder.
            with schema_editor.connection.cursor() as cursor:
                cursor.execute(sql)

    return apply


class Migration(migrations.Migration):
    dependencies = [("poimen", "0001_initial")]

    operations = [migrations.RunPython(run_on_postgresql(CREATE), run_on_postgresql(DROP))]
