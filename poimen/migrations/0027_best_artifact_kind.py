"""Exact counts in the review lists (issue 24): the best artifact's kind on the record, kept by
the database, and covering indexes for both lists.

- Record.best_artifact_kind: filled here, then kept by a trigger on every insert and every
  update of best_artifact (ingest, refilter, redecision, whatever writes it, in SQL or through
  the ORM); a write of the kind itself is put right the same way. So a list of a kind tests a
  column, not the kind's hundreds of artifact ids.
- record_decided_overlap carries the kind too, and record_matched_evidence does for the near
  misses what it does for the exclusions: on PostgreSQL a list's exact count, of a kind or
  not, unreviewed or not, is one index-only range scan.
"""

from django.db import migrations, models

DECIDED_INCLUDE = ("best_artifact", "best_artifact_kind", "review", "run", "source", "created_at")

BACKFILL = """
UPDATE poimen_record SET best_artifact_kind = (
    SELECT kind FROM poimen_artifact WHERE poimen_artifact.id = poimen_record.best_artifact_id
) WHERE best_artifact_id IS NOT NULL
"""

POSTGRESQL_CREATE = """
CREATE OR REPLACE FUNCTION poimen_record_best_artifact_kind() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND NEW.best_artifact_id IS NOT DISTINCT FROM OLD.best_artifact_id
       AND NEW.best_artifact_kind = OLD.best_artifact_kind THEN
        RETURN NEW;
    END IF;
    NEW.best_artifact_kind := COALESCE(
        (SELECT kind FROM poimen_artifact WHERE id = NEW.best_artifact_id), '');
    RETURN NEW;
END
$$ LANGUAGE plpgsql;
CREATE TRIGGER poimen_record_best_artifact_kind
    BEFORE INSERT OR UPDATE OF best_artifact_id, best_artifact_kind ON poimen_record
    FOR EACH ROW EXECUTE FUNCTION poimen_record_best_artifact_kind();
"""

POSTGRESQL_DROP = """
DROP TRIGGER IF EXISTS poimen_record_best_artifact_kind ON poimen_record;
DROP FUNCTION IF EXISTS poimen_record_best_artifact_kind();
"""

# SQLite's triggers cannot change the row being written: they correct it just after, in the
# same statement. The WHEN clause stops the correction from firing itself again.
SQLITE_KIND = "COALESCE((SELECT kind FROM poimen_artifact WHERE id = NEW.best_artifact_id), '')"
SQLITE_CREATE = [
    f"""
    CREATE TRIGGER poimen_record_best_artifact_kind_insert AFTER INSERT ON poimen_record
    WHEN NEW.best_artifact_kind IS NOT {SQLITE_KIND}
    BEGIN
        UPDATE poimen_record SET best_artifact_kind = {SQLITE_KIND} WHERE id = NEW.id;
    END
    """,
    f"""
    CREATE TRIGGER poimen_record_best_artifact_kind_update
    AFTER UPDATE OF best_artifact_id, best_artifact_kind ON poimen_record
    WHEN NEW.best_artifact_kind IS NOT {SQLITE_KIND}
    BEGIN
        UPDATE poimen_record SET best_artifact_kind = {SQLITE_KIND} WHERE id = NEW.id;
    END
    """,
]
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS poimen_record_best_artifact_kind_insert",
    "DROP TRIGGER IF EXISTS poimen_record_best_artifact_kind_update",
]


def kept_by_the_database(apps, schema_editor):
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        cursor.execute(BACKFILL)
        if connection.vendor == "postgresql":
            # A plain cursor: nothing in the function body is a query placeholder.
            cursor.execute(POSTGRESQL_CREATE)
        else:
            for statement in SQLITE_CREATE:
                cursor.execute(statement)


def left_to_the_code(apps, schema_editor):
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        for statement in (
            [POSTGRESQL_DROP] if connection.vendor == "postgresql" else SQLITE_DROP
        ):
            cursor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("poimen", "0026_shadow_sources"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="record",
            name="record_decided_overlap",
        ),
        migrations.AddField(
            model_name="record",
            name="best_artifact_kind",
            field=models.CharField(blank=True, default="", editable=False, max_length=50),
        ),
        migrations.RunPython(kept_by_the_database, left_to_the_code),
        migrations.AddIndex(
            model_name="record",
            index=models.Index(
                condition=models.Q(("status__in", ["excluded", "redacted"])),
                fields=["-best_overlap", "-id"],
                include=DECIDED_INCLUDE,
                name="record_decided_overlap",
            ),
        ),
        migrations.AddIndex(
            model_name="record",
            index=models.Index(
                condition=models.Q(("best_overlap__gt", 0), ("status", "evidence")),
                fields=["-best_overlap", "-id"],
                include=DECIDED_INCLUDE,
                name="record_matched_evidence",
            ),
        ),
    ]
