"""The runs page shows a queued run's batches and its workers."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from poimen.models import IngestRun, QueuedBatch


@pytest.fixture
def logged_in(client, db):
    client.force_login(User.objects.create_user("rita"))
    return client


def test_a_queued_run_shows_its_batches_and_workers(logged_in):
    run = IngestRun.objects.create(source="backfill")
    local = IngestRun.objects.create(source="laptop")
    batch = {"job": f"ingest-{run.pk}", "run": run, "size": 1000}
    QueuedBatch.objects.create(number=1, state="written", worker="a@host1", **batch)
    QueuedBatch.objects.create(number=2, state="written", worker="b@host2", **batch)
    QueuedBatch.objects.create(number=3, state="written", worker="a@host1", **batch)
    QueuedBatch.objects.create(number=4, state="sent", worker="b@host2", **batch)
    QueuedBatch.objects.create(number=5, state="failed", worker="a@host1", **batch)
    QueuedBatch.objects.create(number=6, **batch)

    html = logged_in.get(reverse("runs")).content.decode()

    # Newest first: the local run's row, then the queued run's.
    local_row, row = (
        html[html.index(f"#{local.pk}<") : html.index(f"#{run.pk}<")],
        html[html.index(f"#{run.pk}<") :],
    )
    assert "queued: 3 of 6 batches written (3,000 records), <strong>1 failed</strong>" in row
    assert "a@host1 2 · b@host2 1 (on a batch)" in row
    assert "queued:" not in local_row
