"""The exclusions list's own indexes (issue 14). Since redaction (issue 9) the list holds two
statuses, excluded and redacted, and neither (status, best_overlap) nor the trigram index made
for status = 'excluded' serves a condition on both:

- record_decided_overlap: excluded and redacted records in overlap order, so a page (in
  overlap or closeness order) and a capped count walk one index and stop; it carries the
  columns the list filters on (kind by best artifact, reviewed, run, source, date), so on
  PostgreSQL a walk tests them, and counts, without reading the table;
- record_decided_run_time: a run's exclusions in time order (the planner, taking a run's
  records to be spread evenly in time, otherwise walks every later run's records: 2 s);
- record_excluded_text_trgm, made again for both statuses (on PostgreSQL: SQLite has no
  trigram index and scans), so a search over the list is an index lookup again, not a read of
  every exclusion's text (3-4 s at 100,000 exclusions).
"""

from django.db import migrations, models

TRIGRAM = "record_excluded_text_trgm"
TRIGRAM_SQL = (
    f"CREATE INDEX {TRIGRAM} ON poimen_record USING gin (UPPER(text) gin_trgm_ops) WHERE {{}}"
)


def trigram_for(condition: str):
    def rebuild(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        schema_editor.execute(f"DROP INDEX IF EXISTS {TRIGRAM}")
        schema_editor.execute(TRIGRAM_SQL.format(condition))

    return rebuild


class Migration(migrations.Migration):
    dependencies = [
        ("poimen", "0016_mixed_coverage"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="record",
            index=models.Index(
                condition=models.Q(("status__in", ["excluded", "redacted"])),
                fields=["-best_overlap", "-id"],
                include=("best_artifact", "review", "run", "source", "created_at"),
                name="record_decided_overlap",
            ),
        ),
        migrations.AddIndex(
            model_name="record",
            index=models.Index(
                condition=models.Q(("status__in", ["excluded", "redacted"])),
                fields=["run", "-created_at", "-id"],
                name="record_decided_run_time",
            ),
        ),
        migrations.RunPython(
            trigram_for("status IN ('excluded', 'redacted')"),
            trigram_for("status = 'excluded'"),
        ),
    ]
