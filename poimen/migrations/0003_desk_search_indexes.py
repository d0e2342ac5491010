"""Trigram indexes for the review desk's text search, on PostgreSQL only.

The desk searches record text with icontains (UPPER(text) LIKE UPPER('%q%')). Without an index
that scans every listed record's text (0.4-0.6 s over 100,000 exclusions). These GIN trigram
indexes are partial: only exclusions and near misses (records with a stored match) are indexed,
so ingesting ordinary evidence costs nothing extra. SQLite has no such index and scans.
"""

from django.db import migrations

INDEXES = {
    "record_excluded_text_trgm": "status = 'excluded'",
    "record_matched_text_trgm": "status = 'evidence' AND best_overlap >= 0.2",
}


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for name, condition in INDEXES.items():
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON poimen_record "
            f"USING gin (UPPER(text) gin_trgm_ops) WHERE {condition}"
        )


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [("poimen", "0002_event_append_only")]

    operations = [migrations.RunPython(create, drop)]
