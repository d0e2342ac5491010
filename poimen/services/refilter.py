"""Refilter: stored records checked again from their text (against every artifact, or one
kind's), their matches replaced and their decisions and statuses updated."""

from collections import Counter
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from poimen.artifact_index import ArtifactIndex, artifact_index_load
from poimen.checked import summarise
from poimen.derived_rule import derived_condition, mixed_from_stored
from poimen.keyset import keyset_pages
from poimen.models import Artifact, Event, Match, Record
from poimen.policies import Policies
from poimen.record_decision import apply_checked
from poimen.redaction import StoredMatch, redactions_from_stored, stored_matches
from poimen.services.common import batch_size_or_default
from poimen.services.redecide import DecisionCounts, decision_before, decision_events
from poimen.services.thresholds import check_known_kind


@dataclass(kw_only=True)
class RefilterResult(DecisionCounts):
    checked: int = 0
    matches: int = 0


DECISION_FIELDS = (
    "derived",
    "status",
    "coverage",
    "mixed_coverage",
    "best_overlap",
    "best_artifact_id",
    "cut_spans",
    "evidence_text",
)


def _decision_of(record: Record) -> tuple:
    return tuple(getattr(record, field) for field in DECISION_FIELDS)


def records_refilter(
    *, kind: str | None = None, batch_size: int | None = None, actor=None
) -> RefilterResult:
    """Check stored records again (against every artifact, or those of `kind`): matches are
    replaced, decisions and statuses updated. A reviewer's verdict is never overridden."""
    batch_size = batch_size_or_default(batch_size)
    started_at = refilter_start(kind)
    artifact_index = artifact_index_load(kind=kind)
    kinds = set(Artifact.objects.values_list("kind", flat=True))
    result = RefilterResult()
    records = Record.objects.select_related("review")
    for page in keyset_pages(records, batch_size):
        refilter_page(page, artifact_index=artifact_index, kind=kind, kinds=kinds, result=result)
    refilter_finish(kind=kind, started_at=started_at, result=result, actor=actor)
    return result


def refilter_start(kind: str | None):
    """Check the kind; the moment the refilter starts (what its event keeps)."""
    if kind is not None:
        check_known_kind(kind)
    return timezone.now()


def refilter_page(
    page: list[Record],
    *,
    artifact_index: ArtifactIndex,
    kind: str | None,
    kinds: set[str],
    result: RefilterResult,
    actor=None,
) -> None:
    """Check one page of stored records again and write what changed, in one transaction
    (the local refilter and the queue's workers both call it)."""
    policies = artifact_index.policies
    verdicts = artifact_index.filter.check_many([record.text for record in page])
    before = {r.pk: _decision_of(r) for r in page}
    decided_before = {r.pk: decision_before(r) for r in page}
    with transaction.atomic():
        stale = Match.objects.filter(record__in=page)
        if kind is not None:
            stale = stale.filter(artifact__kind=kind)
        stale.delete()
        # Only this kind is checked: the others' matches stay, and count across kinds.
        others = stored_matches(r.pk for r in page) if kind is not None else {}
        matches = []
        for record, verdict in zip(page, verdicts, strict=True):
            own = apply_checked(record, summarise(verdict, record.text), artifact_index)
            if kind is not None:
                # Only this kind was checked: keep what the record knows of the others.
                record.coverage = {
                    **{k: v for k, v in before[record.pk][2].items() if k != kind},
                    **record.coverage,
                }
                fresh = [StoredMatch(kind, m.overlap, m.shared, m.spans) for m in own]
                record.mixed_coverage = mixed_from_stored(
                    record.text, [*others.get(record.pk, []), *fresh]
                )
            matches.extend(own)
        Match.objects.bulk_create(matches)
        if kind is not None:
            # The decision query reads coverage from the table: store the new one first.
            covered = [
                r
                for r in page
                if (r.coverage, r.mixed_coverage) != (before[r.pk][2], before[r.pk][3])
            ]
            Record.objects.bulk_update(covered, ["coverage", "mixed_coverage"])
            _redo_best_and_derived(page, policies, kinds)
            # and the cuts from every kind's stored spans, not only this kind's
            redactions_from_stored(page, policies)
        counts = Counter()
        events = decision_events(
            page, decided_before, cause="refilter", actor=actor, counts=counts, policies=policies
        )
        result.count(counts)
        # Most records come out as they went in: write only those that changed.
        changed = [r for r in page if _decision_of(r) != before[r.pk]]
        Record.objects.bulk_update(changed, list(DECISION_FIELDS))
        Event.objects.log_many(events)
    result.checked += len(page)
    result.matches += len(matches)


def refilter_finish(*, kind: str | None, started_at, result: RefilterResult, actor=None) -> None:
    """One event for the whole run, so that the desk can tell which records it has re-checked
    (every record stored before `started_at`) even when no status changed."""
    Event.objects.log(
        Event.Type.RECORDS_REFILTERED,
        actor=actor,
        kind=kind or "",
        data={
            "kind": kind,
            "started_at": started_at.isoformat(),
            "checked": result.checked,
            "excluded": result.excluded,
            "released": result.released,
            "redacted": result.redacted,
            "kept_by_review": result.kept_by_review,
        },
    )


def _redo_best_and_derived(page: list[Record], policies: Policies, kinds: set[str]) -> None:
    """After matches of one kind were replaced: best match and decision from all stored ones."""
    ids = [r.pk for r in page]
    derived_ids = set(
        Record.objects.filter(pk__in=ids)
        .filter(derived_condition(policies, kinds))
        .values_list("pk", flat=True)
    )
    best = {}
    for match in Match.objects.filter(record_id__in=ids).order_by("record_id", "-overlap"):
        best.setdefault(match.record_id, match)
    for record in page:
        record.derived = record.pk in derived_ids
        top = best.get(record.pk)
        record.best_overlap = round(top.overlap, 6) if top else 0.0
        record.best_artifact_id = top.artifact_id if top else None
