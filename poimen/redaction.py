"""What a derived record loses: the app's side of filter.redaction.

A derived record is redacted when every kind that decided it redacts (KindPolicy.on_derived)
and enough of it is left (filter.redaction.MIN_KEPT_WORDS); otherwise it is excluded whole.
The cut is every passage of every match that decided it: the matches over their kind's
threshold, or every match of a kind whose coverage decided (a record stitched from several
artifacts), or, when only the coverage across kinds decided, every match of every kind. The
same function runs on a fresh check (ingest, refilter) and on stored matches (a threshold or
policy change), so a redaction made either way is the same.
"""

from collections import defaultdict
from collections.abc import Iterable
from typing import NamedTuple, Protocol

from filter.decision import coverage_exceeds, match_exceeds
from filter.redaction import evidence_text, redaction
from poimen.derived_rule import mixed_exceeds_stored
from poimen.models import Match, Record
from poimen.policies import Policies


class Passages(Protocol):
    """A match as the rule reads it: a CheckedMatch, or a StoredMatch."""

    kind: str
    overlap: float
    shared: int
    spans: Iterable


class StoredMatch(NamedTuple):
    kind: str
    overlap: float
    shared: int
    spans: list


def deciding_matches(
    matches: Iterable[Passages], coverage: dict, policies: Policies, mixed: dict | None = None
) -> dict:
    """kind -> the matches that decide the record for that kind (empty: it is not derived).
    `coverage` is the record's stored coverage (poimen.derived_rule.stored_coverage), `mixed`
    its coverage across kinds (stored_mixed): when no kind decides alone and that does, every
    kind it involves decides, with all its matches."""
    matches = list(matches)
    by_kind = defaultdict(list)
    for match in matches:
        by_kind[match.kind].append(match)
    decided = {}
    for kind in sorted(set(by_kind) | set(coverage)):
        threshold, min_shared = policies.threshold_for(kind), policies.min_shared_for(kind)
        exceeding = [
            m
            for m in by_kind[kind]
            if match_exceeds(m.overlap, m.shared, threshold=threshold, min_shared=min_shared)
        ]
        stitched = coverage.get(kind)
        if exceeding:
            decided[kind] = exceeding
        elif stitched and coverage_exceeds(
            stitched["coverage"],
            stitched["artifacts"],
            stitched["shared"],
            threshold=threshold,
            min_shared=min_shared,
        ):
            decided[kind] = by_kind[kind]
    if not decided and mixed_exceeds_stored(mixed, policies):
        decided = {kind: by_kind[kind] for kind in sorted(mixed["kinds"])}
    return decided


def redaction_apply(record: Record, matches: Iterable[Passages], policies: Policies) -> None:
    """Set `record`'s cut spans and evidence text for its decision (`record.derived`): cut when
    every deciding kind redacts and enough is left, nothing otherwise. The text never changes."""
    cuts = None
    if record.derived:
        decided = deciding_matches(matches, record.coverage, policies, record.mixed_coverage)
        if decided and all(policies.redacts(kind) for kind in decided):
            passages = [
                (span[0], span[1]) for found in decided.values() for m in found for span in m.spans
            ]
            cuts = redaction(record.text, passages)
    record.cut_spans = [[start, end] for start, end in cuts] if cuts else []
    record.evidence_text = evidence_text(record.text, cuts) if cuts else ""


def stored_matches(record_ids: Iterable[int]) -> dict[int, list[StoredMatch]]:
    """Every stored match of the records, as the rule reads them, in one query."""
    found = defaultdict(list)
    rows = Match.objects.filter(record_id__in=list(record_ids)).values_list(
        "record_id", "artifact__kind", "overlap", "shared", "spans"
    )
    for record_id, kind, overlap, shared, spans in rows:
        found[record_id].append(StoredMatch(kind, overlap, shared, spans))
    return found


def redactions_from_stored(records: list[Record], policies: Policies) -> None:
    """redaction_apply on each record from its stored matches (no text is checked again)."""
    matches = stored_matches(r.pk for r in records)
    for record in records:
        redaction_apply(record, matches.get(record.pk, []), policies)
