"""The append-only audit log, its hash chain's head, and the one way events are written."""

from django.conf import settings
from django.db import connections, models, transaction
from django.utils import timezone

from poimen.db.copy_insert import insert_all
from poimen.ledger.audit_chain import GENESIS, chain, content_hash
from poimen.models.artifacts import Artifact
from poimen.models.records import IngestRun, Record


class AuditHead(models.Model):
    """The chain's head: one row (pk 1), how many events are chained, the last one's id and
    hash. Whoever extends the chain holds it: on PostgreSQL the seal trigger, for the moment of
    a commit; on SQLite `log_many`, under the database's one write lock."""

    events = models.BigIntegerField(default=0)
    last_id = models.BigIntegerField(null=True)
    hash = models.CharField(max_length=64, default=GENESIS)

    class Meta:
        constraints = [models.CheckConstraint(condition=models.Q(pk=1), name="audit_head_one")]

    def __str__(self) -> str:
        return f"audit head: {self.events} events, last {self.last_id}, {self.hash[:12]}…"


class EventManager(models.Manager):
    def log(
        self, type: str, *, kind: str = "", data: dict | None = None, save: bool = True, **about
    ) -> "Event":
        """The one way an event is made (as LogEntryManager.log_action is the admin's).

        `about`: who and what it concerns — actor, run, record, artifact (or their *_id).
        With `save` False the event is returned unsaved, for a caller that writes a batch of
        them with `log_many`, in the transaction of the rows they describe."""
        event = self.model(
            type=type, kind=kind, data=data or {}, created_at=timezone.now(), **about
        )
        event.content_hash = content_hash(event)
        if save:
            self.log_many([event])
        return event

    def log_many(self, events: list["Event"]) -> None:
        """Write events made by `log(save=False)` in one statement; their pks are set. The
        chain is extended at commit on PostgreSQL (poimen/ledger/audit_chain.py, SEAL_SQL), here on
        SQLite, whose write lock the first statement takes (so the head read is the last)."""
        if not events:
            return
        with transaction.atomic(using=self.db):
            if connections[self.db].vendor == "postgresql":
                insert_all(events)
                return
            heads = AuditHead.objects.using(self.db)
            if not heads.filter(pk=1).update(events=models.F("events")):
                self._head_restore()
            head = heads.get(pk=1)
            head.hash = chain(head.hash, events, seq=head.events)
            insert_all(events)
            head.events += len(events)
            head.last_id = events[-1].pk
            head.save(update_fields=["events", "last_id", "hash"])

    def _head_restore(self) -> None:
        """The head row again, from the last chained event, where a flush of every table
        (a test's, an operator's restore) took it: the chain goes on from what is there."""
        last = self.using(self.db).filter(seq__isnull=False).order_by("-seq").first()
        AuditHead.objects.using(self.db).get_or_create(
            pk=1,
            defaults={
                "events": last.seq if last else 0,
                "last_id": last.pk if last else None,
                "hash": last.hash if last else GENESIS,
            },
        )


def _described(value) -> str:
    if isinstance(value, list):
        return ", ".join(_described(item) for item in value)
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, dict):
        if {"old", "new"} <= value.keys():
            return f"{value.get('kind', '')} {value['old']} → {value['new']}".strip()
        if {"reviewer", "verdict", "at"} <= value.keys():  # a colleague's verdict overridden
            return f"{value['reviewer']}'s {value['verdict']} of {value['at']}"
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
        REVIEW_NOTED = "review_noted", "Note on a verdict"
        REVIEW_BULK = "review_bulk", "Bulk verdict"
        REVIEW_BULK_UNDONE = "review_bulk_undone", "Bulk verdict undone"
        ARTIFACT_REGISTERED = "artifact_registered"
        RECORDS_REFILTERED = "records_refiltered"
        DERIVED_VERIFIED = "derived_verified", "Evidence verified"
        USER_ADDED = "user_added"
        LOGIN_LOCKED_OUT = "login_locked_out"
        LOGIN_UNLOCKED = "login_unlocked"
        RECORDS_STORED = "records_stored"
        # verify_audit's result: data {"ok": bool, "events": int, "broken": "event 12 …"}
        AUDIT_VERIFIED = "audit_verified", "Audit log verified"
        API_TOKEN_CREATED = "api_token_created"
        API_TOKEN_REVOKED = "api_token_revoked"
        API_TOKEN_MODE_CHANGED = "api_token_mode_changed"
        # data {"source", "old", "new"}: "shadow" or "enforce" (poimen.services.sources)
        SOURCE_MODE_CHANGED = "source_mode_changed", "Source mode changed"
        # The desk for a team (poimen/services/claims.py, second_review.py).
        RECORDS_CLAIMED = "records_claimed", "Records claimed"
        CLAIMS_RELEASED = "claims_released", "Claims released"
        SECOND_REVIEW_ROUTED = "second_review_routed", "Sent to a second reviewer"
        SECOND_REVIEW_GIVEN = "second_review_given", "Second verdict"
        DISAGREEMENT_SETTLED = "disagreement_settled", "Disagreement settled"
        # The review guidelines (poimen/services/guidelines.py): data {"version", "characters"}.
        GUIDELINES_CHANGED = "guidelines_changed", "Guidelines changed"

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
    # Set by `log` (not auto_now_add): the time the hash covers is the time stored.
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    # The hash chain (poimen/ledger/audit_chain.py): what the event says, hashed when it is made;
    # its place in the chain and the hash over its predecessor's and its content's, set as
    # its transaction commits (PostgreSQL) or as it is written (SQLite).
    content_hash = models.CharField(max_length=64, default="", editable=False)
    seq = models.BigIntegerField(null=True, unique=True, editable=False)
    hash = models.CharField(max_length=64, default="", editable=False)

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
        ("overrides", "overriding"),
        ("overlap", "overlap"),
        ("best_overlap", "overlap"),
        ("threshold", "threshold"),
        ("cut_characters", "characters cut"),
        ("old", "old"),
        ("new", "new"),
        ("cause", "cause"),
        ("decided_by", "decided by"),
        ("matched", "matched"),
        ("across_kinds", "across kinds"),
        ("reason", "reason"),
        ("note", "note"),
        ("previous_note", "note before"),
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
        ("source", "source"),
        ("stored", "stored"),
        ("already", "already stored"),
        ("first", "first verdict"),
        ("second", "second verdict"),
        ("settled", "settled as"),
        ("until", "until"),
        ("ok", "chain intact"),
        ("events", "events"),
        ("broken", "first break"),
        ("version", "guidelines version"),
        ("characters", "characters"),
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
