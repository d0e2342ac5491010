"""Emitted artifacts and the policy per kind of artifact (with its history)."""

import numpy as np
from django.conf import settings
from django.db import models
from django.db.models import Q

# Shingle hashes are stored as little-endian uint64 bytes: 8 bytes a shingle, no JSON overhead.
SHINGLE_DTYPE = np.dtype("<u8")


class Artifact(models.Model):
    """An emitted artifact (a skill, a reference page). A new version is a new row."""

    kind = models.CharField(max_length=50)
    name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    # Empty when only the manifest's shingles are known: it still matches, it has nothing to show.
    text = models.TextField(blank=True)
    shingle_normaliser = models.CharField(max_length=50)
    shingle_k = models.PositiveSmallIntegerField()
    shingle_hash = models.CharField(max_length=50)
    shingles = models.BinaryField()
    n_tokens = models.PositiveIntegerField(default=0)
    emitted_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "name", "sha256"], name="artifact_unique_kind_name_sha256"
            )
        ]
        indexes = [models.Index(fields=["kind", "name"], name="artifact_kind_name")]
        ordering = ["kind", "name", "-emitted_at"]
        permissions = [("register_artifact", "Can register artifacts through the API")]

    def __str__(self) -> str:
        return f"{self.kind}:{self.name} ({self.sha256[:12]})"

    @property
    def shingle_array(self) -> np.ndarray:
        return np.frombuffer(bytes(self.shingles), dtype=SHINGLE_DTYPE).astype(np.uint64)


def default_threshold() -> float:
    return settings.POIMEN_DEFAULT_THRESHOLD


def default_min_shared() -> int:
    return settings.POIMEN_DEFAULT_MIN_SHARED


def default_on_derived() -> str:
    return settings.POIMEN_DEFAULT_ON_DERIVED


def default_paste_words() -> int:
    return settings.POIMEN_DEFAULT_PASTE_WORDS


class KindPolicy(models.Model):
    """The filter's settings for one kind of artifact; a kind without a row uses the defaults
    (poimen.decision.policies says which values hold)."""

    class OnDerived(models.TextChoices):
        EXCLUDE = "exclude", "exclude the whole record"
        REDACT = "redact", "cut the copied passages, keep the rest as evidence"

    kind = models.CharField(max_length=50, unique=True)
    threshold = models.FloatField(default=default_threshold)
    min_shared = models.PositiveIntegerField(default=default_min_shared)
    on_derived = models.CharField(
        max_length=10, choices=OnDerived.choices, default=default_on_derived
    )
    # A copied passage of this many words is cut even when the record is under the threshold
    # (filter.decide), when the kind redacts.
    paste_words = models.PositiveIntegerField(default=default_paste_words)

    class Meta:
        verbose_name_plural = "kind policies"
        constraints = [
            models.CheckConstraint(
                condition=Q(threshold__gte=0) & Q(threshold__lte=1),
                name="kindpolicy_threshold_between_0_and_1",
            )
        ]
        permissions = [("tune_threshold", "Can change a kind's threshold")]

    def __str__(self) -> str:
        return f"{self.kind}: threshold {self.threshold}, {self.on_derived} when derived"


class ThresholdChange(models.Model):
    """Who moved a kind's threshold, when, from what to what, and why."""

    kind = models.CharField(max_length=50)
    old = models.FloatField()
    new = models.FloatField()
    reason = models.TextField()
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["kind", "-created_at"], name="thresholdchange_kind")]

    def __str__(self) -> str:
        return f"{self.kind}: {self.old} -> {self.new}"
