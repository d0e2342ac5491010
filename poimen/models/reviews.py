"""Reviewers' verdicts on records."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from poimen.models.events import Event
from poimen.models.records import Record


class Review(models.Model):
    """A reviewer's verdict on a record. History is kept; the record points at the one in force."""

    class Verdict(models.TextChoices):
        CONFIRMED = "confirmed", "confirmed (exclusion or redaction)"
        FALSE_POSITIVE = "false_positive", "false positive (release to evidence)"
        FALSE_NEGATIVE = "false_negative", "false negative (exclude)"

    class Reason(models.TextChoices):
        """Why a false positive is not a copy to keep out (each offered with one key)."""

        QUOTED = "quoted", "quoted in a discussion"
        REUSE = "reuse", "legitimate reuse"
        BOILERPLATE = "boilerplate", "boilerplate"
        OTHER = "other", "other (see the note)"

    record = models.ForeignKey(Record, on_delete=models.CASCADE, related_name="reviews")
    verdict = models.CharField(max_length=20, choices=Verdict.choices)
    # Only a false positive has a reason (a database constraint says so).
    reason = models.CharField(max_length=20, choices=Reason.choices, blank=True)
    note = models.TextField(blank=True)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    # The bulk verdict this review was given in (its one event lists the records), if any.
    # No database constraint: the event table is append-only (no row of it is ever deleted),
    # and a foreign key into it would make PostgreSQL refuse a TRUNCATE of it for a reason of
    # its own before the append-only trigger can.
    bulk = models.ForeignKey(
        Event,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="bulk_reviews",
        db_constraint=False,
    )
    # When someone undid it: a withdrawn verdict never holds again.
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["reviewer", "-id"], name="review_reviewer_latest")]
        constraints = [
            models.CheckConstraint(
                condition=Q(reason="") | Q(verdict="false_positive"),
                name="review_reason_only_on_false_positive",
            )
        ]
        permissions = [("review_record", "Can review the filter's decisions")]

    def __str__(self) -> str:
        return f"{self.verdict} on record {self.record_id}"

    def status_for(self, record: Record) -> str:
        """The status this verdict imposes on `record`: a release makes it evidence whole, a
        confirmation keeps the filter's redaction (or exclusion), a missed copy is excluded."""
        if self.verdict == self.Verdict.FALSE_POSITIVE:
            return Record.Status.EVIDENCE
        if self.verdict == self.Verdict.CONFIRMED and record.derived:
            return record.filter_status
        return Record.Status.EXCLUDED
