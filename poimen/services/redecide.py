"""Deciding stored records again from stored data (poimen.decision.stored_decisions, filter.decide)
and writing what moved: a threshold change, a kind's policy change, and their dry runs and
previews, which are the same computation with nothing written.
"""

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from filter.decide import Decision
from poimen.decision.policies import Policies
from poimen.decision.record_decision import decision_event
from poimen.decision.stored_decisions import decide_stored
from poimen.models import Event, Record
from poimen.services.common import status_in_force

# The key decision_events counts a verdict that held a record under, with the verdict.
_KEPT = "kept"

# Read a thousand records at a time: a kind may touch most of the table.
CHUNK = 1000


@dataclass(kw_only=True)
class DecisionCounts:
    """Records whose status a decision taken again moved: by their new status, by the move
    (from -> to), and those a reviewer's verdict held where the filter's decision moved."""

    excluded: int = 0
    released: int = 0
    redacted: int = 0
    kept_by_review: int = 0
    moves: Counter = field(default_factory=Counter)
    # the records held by a reviewer's verdict, by verdict
    kept_by_verdict: Counter = field(default_factory=Counter)
    # the records whose decision changed (what a check after the change looks at)
    changed: list[int] = field(default_factory=list)

    def count(self, counts: Counter) -> None:
        """Add what decision_events counted."""
        self.excluded += counts[Record.Status.EXCLUDED]
        self.released += counts[Record.Status.EVIDENCE]
        self.redacted += counts[Record.Status.REDACTED]
        self.kept_by_review += counts["kept_by_review"]
        for key, n in counts.items():
            if isinstance(key, tuple) and key[0] == _KEPT:
                self.kept_by_verdict[key[1]] += n
            elif isinstance(key, tuple):
                self.moves[key] += n

    @property
    def move_rows(self) -> list[tuple[str, str, int]]:
        """The moves as (from, to, how many), in a fixed order: what a page lists."""
        return [(old, new, n) for (old, new), n in sorted(self.moves.items())]

    @property
    def moved(self) -> int:
        return sum(self.moves.values())

    def moves_said(self) -> str:
        """The moves as a line says them: "3 evidence -> excluded, 1 excluded -> redacted"."""
        if not self.moves:
            return "no record changes status"
        return ", ".join(f"{n} {old} -> {new}" for old, new, n in self.move_rows)


def _artifact_id(decision: Decision | None, artifact_ids: dict | None):
    match = decision.match if decision is not None else None
    if match is None:
        return None
    stored = getattr(match, "artifact_id", None)
    return stored if stored is not None else (artifact_ids or {}).get(match.artifact)


def decision_events(
    records: Iterable[Record],
    before: dict[int, tuple],
    decisions: dict[int, Decision | None],
    *,
    cause,
    actor,
    counts: Counter,
    policies: Policies,
    data=None,
    artifact_ids: dict | None = None,
) -> list[Event]:
    """Set each record's status in force and return the events of what changed: a status
    (counted in `counts` under the new status and the move), or the cut of a record that
    stays redacted. `before`: pk -> decision_before(record) as the record was. A record
    whose filter decision moved while a reviewer's verdict holds it counts as kept_by_review."""
    events = []
    for record in records:
        old_status, old_cuts, old_filter_status = before[record.pk]
        record.status = status_in_force(record)
        moved = record.status != old_status
        recut = record.status == Record.Status.REDACTED and record.cut_spans != old_cuts
        if moved:
            counts[record.status] += 1
            counts[(old_status, record.status)] += 1
        elif record.review_id is not None and record.filter_status != old_filter_status:
            counts["kept_by_review"] += 1
            counts[(_KEPT, record.review.verdict)] += 1
        if moved or recut:
            decision = decisions.get(record.pk)
            said = {
                "from": old_status,
                "to": record.status,
                "cause": cause,
                "best_overlap": record.best_overlap,
                **(data or {}),
            }
            events.append(
                decision_event(
                    record,
                    decision,
                    policies,
                    artifact_id=_artifact_id(decision, artifact_ids),
                    data=said,
                    actor=actor,
                )
            )
    return events


def decision_before(record: Record) -> tuple:
    """What decision_events compares: the status, the cut, the filter's own status."""
    return record.status, record.cut_spans, record.filter_status


# What a decision taken again may change of a record.
DECIDED_FIELDS = ["derived", "status", "cut_spans", "evidence_text"]


def _decided_fields(record: Record) -> tuple:
    return tuple(getattr(record, name) for name in DECIDED_FIELDS)


def records_redecide(
    ids: list[int],
    *,
    policies: Policies,
    cause: str,
    actor=None,
    data=None,
    counts: Counter,
    write: bool = True,
) -> list[int]:
    """Decide the records `ids` again from stored data under `policies`, a thousand at a
    time, and count what moves; with `write`, save the records that changed and an event
    for each. Returns the pks of the records whose decision changed. Without `write` it is
    the dry run and the preview of the same change: the same decisions, nothing written."""
    decided = []
    for start in range(0, len(ids), CHUNK):
        chunk = list(
            Record.objects.filter(pk__in=ids[start : start + CHUNK]).select_related(
                "review", "best_artifact"
            )
        )
        before = {r.pk: decision_before(r) for r in chunk}
        stored = {r.pk: _decided_fields(r) for r in chunk}
        decisions = decide_stored(chunk, policies)
        events = decision_events(
            chunk,
            before,
            decisions,
            cause=cause,
            actor=actor,
            counts=counts,
            policies=policies,
            data=data,
        )
        changed = [r for r in chunk if _decided_fields(r) != stored[r.pk]]
        if write:
            Record.objects.bulk_update(changed, DECIDED_FIELDS)
            Event.objects.log_many(events)
        decided.extend(r.pk for r in changed)
    return decided
