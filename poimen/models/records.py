"""Ingest runs, the records they brought, and their matches with artifacts."""

from datetime import timedelta

from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from poimen.models.artifacts import Artifact


class IngestRun(models.Model):
    """One ingest: where from, whether the filter ran, the thresholds in force, what it counted."""

    source = models.CharField(max_length=255)
    filtered = models.BooleanField(default=True)
    # The run of records decided in shadow mode (their token's or their source's): their
    # decisions were recorded, not applied (the memory system kept every record).
    shadow = models.BooleanField(default=False)
    thresholds = models.JSONField(default=dict)
    counts = models.JSONField(default=dict)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Set with the counts after every batch: a run that stopped writing without finishing
    # (killed, crashed, its machine gone) is told from one still running by its age.
    last_batch_at = models.DateTimeField(null=True, blank=True)

    # What a shadow run's badge says on the desk (the record page, the lists, the runs).
    SHADOW_MEANING = (
        "decided in shadow mode: recorded, not applied; the memory system kept the record, "
        "and the status is what would have happened"
    )

    # A run writes a batch in well under a minute; silent for this long, it is not running.
    STALE_AFTER = timedelta(minutes=10)

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        state = ("filtered" if self.filtered else "UNFILTERED") + (
            ", shadow" if self.shadow else ""
        )
        return f"run {self.pk} of {self.source} ({state})"

    @property
    def unfinished(self) -> bool:
        """Stopped without finishing: its records so far are stored, the rest never read."""
        if self.finished_at is not None:
            return False
        last = self.last_batch_at or self.started_at
        return last is not None and timezone.now() - last > self.STALE_AFTER


# What the two review lists' indexes carry besides their order (PostgreSQL's INCLUDE): every
# column the lists filter on, so that a walk tests them and an exact count reads no table.
LIST_INDEX_COLUMNS = [
    "best_artifact",
    "best_artifact_kind",
    "review",
    "run",
    "source",
    "created_at",
]


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
    # The filter's own decision: the record copies an artifact, whole or in part (a pasted
    # passage); `status` is what holds, after any reviewer's verdict.
    derived = models.BooleanField(default=False)
    # Share of the record inside passages of any artifact of a kind, per kind (the filter's
    # coverage), kept so that a threshold change can be applied without re-shingling.
    coverage = models.JSONField(default=dict, blank=True)
    # Share of the record inside passages of its matches of all kinds together, when they are
    # of two kinds or more (filter's MixedCoverage): {"coverage", "n_kinds", "shared",
    # "kinds": {kind: 1}} (filter.decide.mixed_facts), for the same replay. Empty for
    # records checked before it existed, until a refilter (docs/architecture.md).
    mixed_coverage = models.JSONField(default=dict, blank=True)
    # The filter's redaction, kept whatever a reviewer decides: `text`'s cuts as [start, end)
    # pairs (filter.redaction) and the evidence text they make; empty unless it redacted.
    cut_spans = models.JSONField(default=list, blank=True)
    evidence_text = models.TextField(blank=True)
    # Whether what a cut of every matched passage leaves still copies an artifact (the matcher
    # on that text, at check time): such a record is excluded whole rather than redacted
    # (filter.decide). It depends on no threshold, so a decision taken again reads it.
    remainder_copies = models.BooleanField(default=False)
    # Denormalised from the best Match so the review lists sort and filter without a join.
    best_overlap = models.FloatField(default=0.0)
    best_artifact = models.ForeignKey(
        Artifact, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # The best artifact's kind ("" without one), so a list of a kind, and its exact count, reads
    # one index. Kept by the database (migration 0027's triggers) on every write of
    # best_artifact, whatever the path: never set it in code.
    best_artifact_kind = models.CharField(max_length=50, blank=True, default="", editable=False)
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
            # The exclusions list (excluded and redacted together) in overlap order, and the
            # walks of its closeness order: one index, as (status, overlap) gives that order
            # for one status at a time.
            models.Index(
                fields=["-best_overlap", "-id"],
                name="record_decided_overlap",
                condition=Q(status__in=["excluded", "redacted"]),
                include=LIST_INDEX_COLUMNS,
            ),
            # The same for the near misses: evidence that matched an artifact (over the floor,
            # which is above 0), a small share of the evidence.
            models.Index(
                fields=["-best_overlap", "-id"],
                name="record_matched_evidence",
                condition=Q(status="evidence", best_overlap__gt=0),
                include=LIST_INDEX_COLUMNS,
            ),
            models.Index(fields=["derived"], name="record_derived"),
            models.Index(fields=["created_at"], name="record_created_at"),
            # A run's exclusions in time order (the list filtered by run, sorted by time):
            # the time index alone walks every later run's records first.
            models.Index(
                fields=["run", "-created_at", "-id"],
                name="record_decided_run_time",
                condition=Q(status__in=["excluded", "redacted"]),
            ),
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
    # The same passages as [start, end) word positions of the artifact's text (filter's
    # tokenise): where in the artifact the record copies, for its heat map. Empty for a match
    # stored before they were kept, until a refilter.
    # (A database default as well, so that rows written in SQL, as the benchmarks fill them,
    # need not name it.)
    artifact_ranges = models.JSONField(
        default=list, db_default=models.Value([], models.JSONField()), blank=True
    )
    # Each passage's shared shingles, in the order of `spans`: how much of it is copied word
    # for word (a pasted passage is mostly shared: filter.decide.pasted). Empty for a match
    # stored before they were kept, until a refilter.
    passage_shared = models.JSONField(
        default=list, db_default=models.Value([], models.JSONField()), blank=True
    )

    class Meta:
        verbose_name_plural = "matches"
        constraints = [
            models.UniqueConstraint(fields=["record", "artifact"], name="match_unique_pair")
        ]
        indexes = [models.Index(fields=["overlap"], name="match_overlap")]

    def __str__(self) -> str:
        return f"record {self.record_id} ~ artifact {self.artifact_id}: {self.overlap:.2f}"
