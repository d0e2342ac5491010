"""Migration 0010: redaction is the default for new kinds, and every kind that existed before it
keeps excluding derived records whole."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [("poimen", "0009_record_identity_run_last_batch")]
AFTER = [("poimen", "0010_redaction")]


@pytest.mark.django_db(transaction=True)
def test_kinds_that_existed_keep_excluding_and_new_kinds_redact():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    old.get_model("poimen", "KindPolicy").objects.create(
        kind="skill", threshold=0.85, min_shared=20
    )
    old.get_model("poimen", "Artifact").objects.create(
        kind="reference",
        name="postgres-locks",
        sha256="0" * 64,
        shingle_normaliser="norm-v1",
        shingle_k=5,
        shingle_hash="xxh3_64",
        shingles=b"",
        emitted_at=timezone.now(),
    )

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps
    policies = new.get_model("poimen", "KindPolicy").objects
    assert sorted(policies.values_list("kind", "threshold", "on_derived")) == [
        ("reference", 0.8, "exclude"),
        ("skill", 0.85, "exclude"),
    ]
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    from poimen.models import KindPolicy

    assert KindPolicy.objects.create(kind="memory").on_derived == "redact"
