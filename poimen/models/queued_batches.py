"""QueuedBatch: one batch a queued ingest or refilter sent to the workers.

The row is made before the batch is sent and is the batch's ledger: the worker that writes the
batch marks it written, with its counts, in the transaction that writes the records, so a
batch delivered twice (a worker killed before its acknowledgement, a batch sent again) is
written once, and the waiting command reads what happened here rather than from the broker.
"""

from django.db import models


class QueuedBatch(models.Model):
    class State(models.TextChoices):
        SENT = "sent"
        WRITTEN = "written"
        FAILED = "failed"

    ENDED = [State.WRITTEN, State.FAILED]

    # "ingest-<run id>" or "refilter-<uuid>": the batches of one queued command.
    job = models.CharField(max_length=64)
    number = models.PositiveIntegerField()
    run = models.ForeignKey(
        "poimen.IngestRun", null=True, blank=True, on_delete=models.CASCADE, related_name="batches"
    )
    size = models.PositiveIntegerField(help_text="Records sent in the batch.")
    state = models.CharField(max_length=10, choices=State.choices, default=State.SENT)
    attempts = models.PositiveIntegerField(default=0, help_text="Deliveries a worker started.")
    worker = models.CharField(
        max_length=255, blank=True, help_text="Who is on it, then who wrote it."
    )
    counts = models.JSONField(default=dict)
    error = models.TextField(blank=True)
    sent_at = models.DateTimeField(auto_now_add=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "poimen"
        constraints = [
            models.UniqueConstraint(fields=["job", "number"], name="queued_batch_once"),
        ]

    def __str__(self) -> str:
        return f"batch {self.number} of {self.job} ({self.state})"
