"""poimen's data: artifacts, ingested records, their matches, reviews and the audit log."""

from datetime import timedelta

import numpy as np
from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

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


class KindPolicy(models.Model):
    """The filter's settings for one kind of artifact; a kind without a row uses the defaults
    (poimen.policies says which values hold)."""

    class OnDerived(models.TextChoices):
        EXCLUDE = "exclude", "exclude the whole record"
        REDACT = "redact", "cut the copied passages, keep the rest as evidence"

    kind = models.CharField(max_length=50, unique=True)
    threshold = models.FloatField(default=default_threshold)
    min_shared = models.PositiveIntegerField(default=default_min_shared)
    on_derived = models.CharField(
        max_length=10, choices=OnDerived.choices, default=default_on_derived
    )

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


class IngestRun(models.Model):
    """One ingest: where from, whether the filter ran, the thresholds in force, what it counted."""

    source = models.CharField(max_length=255)
    filtered = models.BooleanField(default=True)
    thresholds = models.JSONField(default=dict)
    counts = models.JSONField(default=dict)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Set with the counts after every batch: a run that stopped writing without finishing
    # (killed, crashed, its machine gone) is told from one still running by its age.
    last_batch_at = models.DateTimeField(null=True, blank=True)

    # A run writes a batch in well under a minute; silent for this long, it is not running.
    STALE_AFTER = timedelta(minutes=10)

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        state = "filtered" if self.filtered else "UNFILTERED"
        return f"run {self.pk} of {self.source} ({state})"

    @property
    def unfinished(self) -> bool:
        """Stopped without finishing: its records so far are stored, the rest never read."""
        if self.finished_at is not None:
            return False
        last = self.last_batch_at or self.started_at
        return last is not None and timezone.now() - last > self.STALE_AFTER


class Record(models.Model):
    """An ingested record and the filter's decision on it."""

    class Status(models.TextChoices):
        EVIDENCE = "evidence"
        REDACTED = "redacted"
        EXCLUDED = "excluded"

    run = models.ForeignKey(IngestRun, on_delete=models.PROTECT, related_name="records")
    source = models.CharField(max_length=255)
    external_id = models.CharField(max_length=500)
    source_path = models.CharField(max_length=1000, blank=True)
    position = models.PositiveIntegerField(
        null=True, blank=True, help_text="Line (JSONL) or message index in the source file."
    )
    session = models.CharField(max_length=255, blank=True)
    role = models.CharField(max_length=50, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    # The record's own identity where its source gives one (a session and a message uuid, a
    # conversation and a node): the same record under any source label. Empty otherwise.
    identity = models.CharField(max_length=500, blank=True, default="")
    text = models.TextField()
    sha256 = models.CharField(max_length=64)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.EVIDENCE)
    # The filter's own decision; `status` is what holds, after any reviewer's verdict.
    derived = models.BooleanField(default=False)
    # Share of the record inside passages of any artifact of a kind, per kind (the filter's
    # coverage), kept so that a threshold change can be applied without re-shingling.
    coverage = models.JSONField(default=dict, blank=True)
    # The filter's redaction, kept whatever a reviewer decides: `text`'s cuts as [start, end)
    # pairs (filter.redaction) and the evidence text they make; empty unless it redacted.
    cut_spans = models.JSONField(default=list, blank=True)
    evidence_text = models.TextField(blank=True)
    # Denormalised from the best Match so the review lists sort and filter without a join.
    best_overlap = models.FloatField(default=0.0)
    best_artifact = models.ForeignKey(
        Artifact, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # The reviewer's verdict in force (the latest review), or None: it outranks the filter.
    review = models.ForeignKey(
        "Review", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source", "external_id"], name="record_unique_source_external_id"
            ),
            models.UniqueConstraint(
                fields=["identity"], condition=~Q(identity=""), name="record_unique_identity"
            ),
        ]
        indexes = [
            models.Index(F("status"), F("best_overlap").desc(), name="record_status_overlap"),
            models.Index(fields=["derived"], name="record_derived"),
            models.Index(fields=["created_at"], name="record_created_at"),
        ]
        permissions = [("check_records", "Can check and store records through the API")]

    def __str__(self) -> str:
        return f"{self.source}:{self.external_id} ({self.status})"

    @property
    def filter_status(self) -> str:
        """The filter's own decision: evidence, redacted (when cuts were kept) or excluded."""
        if not self.derived:
            return Record.Status.EVIDENCE
        return Record.Status.REDACTED if self.cut_spans else Record.Status.EXCLUDED

    @property
    def evidence(self) -> str | None:
        """What a memory system may learn from this record: its text, the evidence text of a
        redaction, or nothing when it is excluded. Every consumer of evidence asks this."""
        if self.status == Record.Status.EVIDENCE:
            return self.text
        if self.status == Record.Status.REDACTED:
            return self.evidence_text
        return None


class Match(models.Model):
    """A record–artifact pair whose overlap reached the reporting floor (not only exclusions)."""

    record = models.ForeignKey(Record, on_delete=models.CASCADE, related_name="matches")
    artifact = models.ForeignKey(Artifact, on_delete=models.PROTECT, related_name="matches")
    overlap = models.FloatField()
    artifact_containment = models.FloatField()
    record_containment = models.FloatField()
    shared = models.PositiveIntegerField()
    threshold = models.FloatField(help_text="The kind's threshold when the decision was made.")
    # Its passages in the record, [start, end) pairs: what a policy or threshold change cuts.
    spans = models.JSONField(default=list, blank=True)

    class Meta:
        verbose_name_plural = "matches"
        constraints = [
            models.UniqueConstraint(fields=["record", "artifact"], name="match_unique_pair")
        ]
        indexes = [models.Index(fields=["overlap"], name="match_overlap")]

    def __str__(self) -> str:
        return f"record {self.record_id} ~ artifact {self.artifact_id}: {self.overlap:.2f}"


class EventManager(models.Manager):
    def log(
        self, type: str, *, kind: str = "", data: dict | None = None, save: bool = True, **about
    ) -> "Event":
        """The one way an event is made (as LogEntryManager.log_action is the admin's).

        `about`: who and what it concerns — actor, run, record, artifact (or their *_id).
        With `save` False the event is returned unsaved, for a caller that writes a batch of
        them in one statement with the rows they describe."""
        event = self.model(type=type, kind=kind, data=data or {}, **about)
        if save:
            event.save(force_insert=True)
        return event


def _described(value) -> str:
    if isinstance(value, list):
        return ", ".join(_described(item) for item in value)
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, dict):
        if {"old", "new"} <= value.keys():
            return f"{value.get('kind', '')} {value['old']} → {value['new']}".strip()
        return ", ".join(f"{k} {_described(v)}" for k, v in value.items())
    return str(value)


class Event(models.Model):
    """The append-only audit log. Rows are never updated or deleted (a trigger on PostgreSQL)."""

    class Type(models.TextChoices):
        DERIVED_EXCLUDED = "derived_excluded"
        DERIVED_REDACTED = "derived_redacted"
        FILTER_DISABLED = "filter_disabled"
        THRESHOLD_CHANGED = "threshold_changed"
        POLICY_CHANGED = "policy_changed"
        STATUS_CHANGED = "status_changed"
        REVIEW_CONFIRMED = "review_confirmed"
        REVIEW_FALSE_POSITIVE = "review_false_positive"
        REVIEW_FALSE_NEGATIVE = "review_false_negative"
        REVIEW_UNDONE = "review_undone"
        REVIEW_BULK = "review_bulk", "Bulk verdict"
        REVIEW_BULK_UNDONE = "review_bulk_undone", "Bulk verdict undone"
        ARTIFACT_REGISTERED = "artifact_registered"
        RECORDS_REFILTERED = "records_refiltered"
        USER_ADDED = "user_added"
        LOGIN_LOCKED_OUT = "login_locked_out"
        LOGIN_UNLOCKED = "login_unlocked"
        RECORDS_STORED = "records_stored"
        API_TOKEN_CREATED = "api_token_created"
        API_TOKEN_REVOKED = "api_token_revoked"

    type = models.CharField(max_length=40, choices=Type.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="poimen_events",
    )
    run = models.ForeignKey(
        IngestRun, null=True, blank=True, on_delete=models.PROTECT, related_name="events"
    )
    record = models.ForeignKey(
        Record, null=True, blank=True, on_delete=models.PROTECT, related_name="events"
    )
    artifact = models.ForeignKey(
        Artifact, null=True, blank=True, on_delete=models.PROTECT, related_name="events"
    )
    kind = models.CharField(max_length=50, blank=True)
    # A snapshot of what the event was about, readable without joining anything.
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = EventManager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["type", "created_at"], name="event_type_created_at"),
            models.Index(fields=["record"], name="event_record"),
        ]

    # The parts of a snapshot a reader of the audit log wants, in this order, under these
    # labels (a label shown once: "overlap" is the best overlap where there is no other).
    DESCRIBED_KEYS = [
        ("from", "from"),
        ("to", "to"),
        ("verdict", "verdict"),
        ("overlap", "overlap"),
        ("best_overlap", "overlap"),
        ("threshold", "threshold"),
        ("cut_characters", "characters cut"),
        ("old", "old"),
        ("new", "new"),
        ("cause", "cause"),
        ("decided_by", "decided by"),
        ("reason", "reason"),
        ("note", "note"),
        ("filters", "filters"),
        ("count", "records"),
        ("kept", "kept as judged since"),
        ("external_id", "record id"),
        ("checked", "checked"),
        ("excluded", "excluded"),
        ("redacted", "redacted"),
        ("released", "released"),
        ("paths", "paths"),
        ("username", "user"),
        ("role", "role"),
        ("address", "address"),
        ("failures", "failures"),
        ("token", "token"),
        ("stored", "stored"),
        ("already", "already stored"),
    ]

    def __str__(self) -> str:
        return f"{self.type} at {self.created_at:%Y-%m-%d %H:%M:%S}"

    def describe(self) -> str:
        """What happened, in a line: "from: evidence · to: excluded · overlap: 0.93 ..."."""
        if not isinstance(self.data, dict):
            return ""
        seen = set()
        parts = []
        for key, label in self.DESCRIBED_KEYS:
            value = self.data.get(key)
            if value in (None, "", {}) or label in seen:
                continue
            seen.add(label)
            parts.append(f"{label}: {_described(value)}")
        return " · ".join(parts)


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


class ApiToken(models.Model):
    """A bearer token for the JSON API, acting as its user. Only its SHA-256 is stored: the
    token is shown once, when it is made (poimen.services.tokens)."""

    key_sha256 = models.CharField(max_length=64, unique=True)
    # The token's first characters, to tell tokens apart in a list without holding them.
    prefix = models.CharField(max_length=16)
    name = models.CharField(max_length=100)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="api_tokens"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        state = " (revoked)" if self.revoked_at else ""
        return f"{self.name} [{self.prefix}…] of {self.user}{state}"


# Kept in its own module for length; imported here so that it is one of the app's models.
from poimen.queued_batch import QueuedBatch  # noqa: E402, F401
