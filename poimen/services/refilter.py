"""Refilter: stored records checked again from their text against every artifact, their
matches replaced and their decisions (filter.decide) and statuses updated.

A refilter of one kind (`--kind`) is the same check: a decision reads every artifact a record
copies (what a cut leaves, coverage across kinds), so it is never taken from one kind's
artifacts alone. A check costs about the same whatever the number of artifacts, so this costs
no more than checking against one kind's did.
"""

from collections import Counter
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from poimen.db.keyset import keyset_pages
from poimen.decision.artifact_index import ArtifactIndex, artifact_index_load
from poimen.decision.checked import check_texts
from poimen.decision.record_decision import apply_checked
from poimen.models import Event, Match, Record
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
    "remainder_copies",
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
    """Check stored records again against every artifact: matches are replaced, decisions
    and statuses updated. A reviewer's verdict is never overridden. `kind` names the kind
    the refilter is run for (its event says it); the check is the same."""
    batch_size = batch_size_or_default(batch_size)
    started_at = refilter_start(kind)
    artifact_index = artifact_index_load()
    result = RefilterResult()
    records = Record.objects.select_related("review")
    for page in keyset_pages(records, batch_size):
        refilter_page(page, artifact_index=artifact_index, result=result)
    refilter_finish(kind=kind, started_at=started_at, result=result, actor=actor)
    return result


def refilter_start(kind: str | None):
    """Check the kind; the moment the refilter starts (what its event keeps)."""
    if kind is not None:
        check_known_kind(kind)
    return timezone.now()


def refilter_records(
    ids, *, artifact_index: ArtifactIndex, result: RefilterResult, actor=None, **said
) -> None:
    """Check the stored records `ids` again, a refilter page at a time (refilter_page, which
    `said` goes to: the events' cause and data): what a registration could change, or a
    kind's new min_shared."""
    records = Record.objects.filter(pk__in=ids).select_related("review")
    for page in keyset_pages(records, batch_size_or_default(None)):
        refilter_page(page, artifact_index=artifact_index, result=result, actor=actor, **said)


def refilter_page(
    page: list[Record],
    *,
    artifact_index: ArtifactIndex,
    result: RefilterResult,
    actor=None,
    cause: str = "refilter",
    data=None,
) -> None:
    """Check one page of stored records again and write what changed, in one transaction
    (the local refilter, the queue's workers and a lowered min_shared call it). Each event
    says `cause` and carries `data`."""
    checked = check_texts(artifact_index.filter, [record.text for record in page])
    before = {r.pk: _decision_of(r) for r in page}
    decided_before = {r.pk: decision_before(r) for r in page}
    with transaction.atomic():
        Match.objects.filter(record__in=page).delete()
        matches, decisions = [], {}
        for record, verdict in zip(page, checked, strict=True):
            decisions[record.pk], own = apply_checked(record, verdict, artifact_index)
            matches.extend(own)
        Match.objects.bulk_create(matches)
        counts = Counter()
        events = decision_events(
            page,
            decided_before,
            decisions,
            cause=cause,
            actor=actor,
            counts=counts,
            data=data,
            policies=artifact_index.policies,
            artifact_ids=artifact_index.artifact_ids,
        )
        result.count(counts)
        # Most records come out as they went in: write only those that changed.
        changed = [r for r in page if _decision_of(r) != before[r.pk]]
        Record.objects.bulk_update(changed, list(DECISION_FIELDS))
        Event.objects.log_many(events)
    result.changed.extend(r.pk for r in changed)
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
