"""Deciding stored records again from stored data: their derived flag, their redaction (from
each match's stored spans) and the status that holds. A threshold change, a kind's policy
change and a refilter of one kind all end here; no text is checked again.
"""

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from poimen.models import Event, Record
from poimen.policies import Policies
from poimen.record_decision import across_kinds_snapshot
from poimen.redaction import redactions_from_stored
from poimen.services.common import status_in_force

# The event a status change writes: the filter's own decisions have types of their own.
_STATUS_EVENTS = {
    Record.Status.EXCLUDED: Event.Type.DERIVED_EXCLUDED,
    Record.Status.REDACTED: Event.Type.DERIVED_REDACTED,
}


@dataclass(kw_only=True)
class DecisionCounts:
    """Records whose status a decision taken again changed, by their new status, and those a
    reviewer's verdict held where the filter's decision moved."""

    excluded: int = 0
    released: int = 0
    redacted: int = 0
    kept_by_review: int = 0

    def count(self, counts: Counter) -> None:
        """Add what decision_events counted."""
        self.excluded += counts[Record.Status.EXCLUDED]
        self.released += counts[Record.Status.EVIDENCE]
        self.redacted += counts[Record.Status.REDACTED]
        self.kept_by_review += counts["kept_by_review"]


def status_event(record: Record, old_status: str, *, cause: str, actor=None, data=None) -> Event:
    """The one event a decision taken again writes (unsaved): derived_excluded or
    derived_redacted (with its cut spans) when the filter now excludes or redacts,
    status_changed otherwise."""
    snapshot = {
        "source": record.source,
        "external_id": record.external_id,
        "from": old_status,
        "to": record.status,
        "cause": cause,
        "best_overlap": record.best_overlap,
        **(data or {}),
    }
    if record.status == Record.Status.REDACTED:
        snapshot["spans"] = record.cut_spans
        snapshot["cut_characters"] = sum(end - start for start, end in record.cut_spans)
    best = record.best_artifact
    return Event.objects.log(
        _STATUS_EVENTS.get(record.status, Event.Type.STATUS_CHANGED),
        actor=actor,
        record=record,
        artifact=best,
        kind=best.kind if best else "",
        data=snapshot,
        save=False,
    )


def decision_events(
    records: Iterable[Record],
    before: dict[int, tuple],
    *,
    cause,
    actor,
    counts: Counter,
    data=None,
    policies: Policies | None = None,
) -> list[Event]:
    """Set each record's status in force and return the events of what changed: a status
    (counted in `counts` under the new status), or the cut of a record that stays redacted.
    `before`: pk -> decision_before(record) as the record was. A record whose filter decision
    moved while a reviewer's verdict holds it is counted as "kept_by_review". With `policies`,
    the event of a record with a coverage across kinds says it, against the threshold in force."""
    events = []
    for record in records:
        old_status, old_cuts, old_filter_status = before[record.pk]
        record.status = status_in_force(record)
        said = data
        if policies is not None and record.mixed_coverage:
            said = {**(data or {}), **across_kinds_snapshot(record.mixed_coverage, policies)}
        if record.status != old_status:
            counts[record.status] += 1
            events.append(status_event(record, old_status, cause=cause, actor=actor, data=said))
        elif record.status == Record.Status.REDACTED and record.cut_spans != old_cuts:
            events.append(status_event(record, old_status, cause=cause, actor=actor, data=said))
        elif record.review_id is not None and record.filter_status != old_filter_status:
            counts["kept_by_review"] += 1
    return events


def decision_before(record: Record) -> tuple:
    """What decision_events compares: the status, the cut, the filter's own status."""
    return record.status, record.cut_spans, record.filter_status


def records_redecide(
    ids: list[int],
    *,
    derived: set[int] | None,
    policies: Policies,
    cause: str,
    actor=None,
    data=None,
    counts: Counter,
) -> list[int]:
    """Decide the records `ids` again from stored data, a thousand at a time: derived when
    their pk is in `derived` (None: as they are), redacted or excluded by their kinds'
    policies and stored spans, the status a reviewer's verdict or the filter gives. Writes
    the records that changed and an event for each (see decision_events); returns their pks."""
    decided = []
    for start in range(0, len(ids), 1000):
        chunk = list(
            Record.objects.filter(pk__in=ids[start : start + 1000]).select_related(
                "review", "best_artifact"
            )
        )
        before = {r.pk: decision_before(r) for r in chunk}
        if derived is not None:
            for record in chunk:
                record.derived = record.pk in derived
        redactions_from_stored(chunk, policies)
        events = decision_events(
            chunk, before, cause=cause, actor=actor, counts=counts, data=data, policies=policies
        )
        changed = [r for r in chunk if decision_before(r) != before[r.pk]]
        Record.objects.bulk_update(changed, ["derived", "status", "cut_spans", "evidence_text"])
        Event.objects.log_many(events)
        decided.extend(r.pk for r in changed)
    return decided
