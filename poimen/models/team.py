"""A team's shared work on the desk: claims on records, and second (blind) reviews."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from poimen.models.records import Record
from poimen.models.reviews import Review


class ClaimQuerySet(models.QuerySet):
    def active(self, now=None) -> "ClaimQuerySet":
        """Claims still in force: an expired one holds nothing (its record is back in the pool)."""
        return self.filter(expires_at__gt=now or timezone.now())


class Claim(models.Model):
    """A record held for one reviewer until `expires_at`: review mode serves it to nobody else.
    Either a batch claimed on purpose, or a hold on the record review mode is showing them.

    At most one claim per record (a unique constraint: the guard two racing claims meet); an
    expired one is replaced by the next reviewer's claim. Releasing deletes the rows; the audit
    log keeps who claimed and released what."""

    record = models.OneToOneField(Record, on_delete=models.CASCADE, related_name="claim")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    claimed_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    # A hold: the record review mode shows a reviewer now, held a short while so that no one
    # else is served it (team_rules.hold_duration); a reviewer has one at a time, and it is
    # let go when they move on. A claim (False) is a batch taken on purpose.
    hold = models.BooleanField(default=False)

    objects = ClaimQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["reviewer", "expires_at"], name="claim_reviewer_expires")]

    def __str__(self) -> str:
        return f"record {self.record_id} claimed by user {self.reviewer_id}"


class SecondReview(models.Model):
    """A borderline record sent to a second reviewer after a first verdict.

    The second reviewer judges blind (the desk shows the record as the filter left it); both
    verdicts are kept here, and a disagreement is settled once, by anyone who may review."""

    record = models.OneToOneField(Record, on_delete=models.CASCADE, related_name="second_review")
    # The verdict that sent it (it stays the verdict in force unless the settlement differs).
    first_review = models.ForeignKey(Review, on_delete=models.PROTECT, related_name="+")
    verdict = models.CharField(max_length=20, choices=Review.Verdict.choices, blank=True)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    judged_at = models.DateTimeField(null=True, blank=True)
    settled_verdict = models.CharField(max_length=20, choices=Review.Verdict.choices, blank=True)
    settled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    settled_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["judged_at", "settled_at"], name="second_review_state")]
        constraints = [
            # Judged means a verdict and who gave it; settled means judged first.
            models.CheckConstraint(
                condition=(Q(verdict="") & Q(judged_at=None))
                | (~Q(verdict="") & ~Q(judged_at=None) & ~Q(reviewer=None)),
                name="second_review_judged_whole",
            ),
            models.CheckConstraint(
                condition=Q(settled_verdict="", settled_at=None)
                | (~Q(settled_verdict="") & ~Q(settled_at=None) & ~Q(judged_at=None)),
                name="second_review_settled_after_judged",
            ),
        ]

    def __str__(self) -> str:
        return f"second review of record {self.record_id}"


class OverviewVisit(models.Model):
    """When a user last opened the overview: it opens on what changed since."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    seen_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"user {self.user_id} saw the overview at {self.seen_at:%Y-%m-%d %H:%M}"
