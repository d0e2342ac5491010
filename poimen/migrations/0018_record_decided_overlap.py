"""The exclusions list's own indexes (issue 14). Since redaction (issue 9) the list holds two
statuses, excluded and redacted, and neither (status, best_overlap) nor the trigram index made
for status = 'excluded' serves a condition on both:

- record_decided_overlap: excluded and redacted records in overlap order, so a page (in
  overlap or closeness order) and a capped count walk one index and stop;
- record_run_created_at: a run's records in time order, in place of the run's own index;
- record_excluded_text_trgm, made again for both statuses (on PostgreSQL: SQLite has no
  trigram index and scans), so a search over the list is an index lookup again, not a read of
  every exclusion's text (3-4 s at 100,000 exclusions).
"""

import django.db.models.deletion
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
        ("poimen", "0014_queued_batch"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="record",
            index=models.Index(
                models.OrderBy(models.F("best_overlap"), descending=True),
                models.OrderBy(models.F("id"), descending=True),
                condition=models.Q(("status__in", ["excluded", "redacted"])),
                name="record_decided_overlap",
            ),
        ),
        # A run's records in time order; it serves lookups by run too, so the run's own
        # index goes.
        migrations.AddIndex(
            model_name="record",
            index=models.Index(fields=["run", "created_at"], name="record_run_created_at"),
        ),
        migrations.AlterField(
            model_name="record",
            name="run",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="records",
                to="poimen.ingestrun",
            ),
        ),
        migrations.RunPython(
            trigram_for("status IN ('excluded', 'redacted')"),
            trigram_for("status = 'excluded'"),
        ),
    ]
