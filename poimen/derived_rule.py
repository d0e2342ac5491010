"""The derived rule (filter.decision) in the two other forms the app needs: as SQL, to apply a
threshold from stored matches, and on numpy arrays, to preview one. Both are built by handing
the one rule other operators, so they say what the matcher says (tests/filter/ and
tests/selectors/ check the three agree on thousands of random cases).

What a threshold change needs of a record is stored with it: its matches (overlap, shared) and,
per kind, its coverage by several artifacts (`stored_coverage`).
"""

import operator
from collections.abc import Iterable

from django.db.models import Exists, OuterRef, Q

from filter.decision import Operators, coverage_exceeds, match_exceeds
from poimen.models import Match
from poimen.policies import Policies, report_floor
from poimen.restatements import restatement_condition

# The rule's comparisons as lookups: the left operand is a field path, the right a value.
SQL = Operators(
    greater=lambda field, value: Q(**{f"{field}__gt": value}),
    at_least=lambda field, value: Q(**{f"{field}__gte": value}),
    both=operator.and_,
)


def _coverage_fields(kind: str) -> tuple[str, str, str]:
    """Where a record keeps its coverage by several artifacts of `kind` (see stored_coverage)."""
    return (
        f"coverage__{kind}__coverage",
        f"coverage__{kind}__artifacts",
        f"coverage__{kind}__shared",
    )


def match_exceeds_condition(policies: Policies, kinds: Iterable[str], *, prefix: str = "") -> Q:
    """A Q on Match (or, with a prefix such as "matches__", on a related model): the match
    decides a record, for an artifact of one of `kinds`."""
    condition = Q(pk__in=[])
    for kind in sorted(set(kinds)):
        condition |= Q(**{f"{prefix}artifact__kind": kind}) & match_exceeds(
            f"{prefix}overlap",
            f"{prefix}shared",
            threshold=policies.threshold_for(kind),
            min_shared=policies.min_shared_for(kind),
            ops=SQL,
        )
    return condition


def coverage_exceeds_condition(policies: Policies, kind: str) -> Q:
    """A Q on Record: several artifacts of `kind` together decide it."""
    return coverage_exceeds(
        *_coverage_fields(kind),
        threshold=policies.threshold_for(kind),
        min_shared=policies.min_shared_for(kind),
        ops=SQL,
    )


def derived_condition(policies: Policies, kinds: Iterable[str]) -> Q:
    """The filter's decision as a Q on Record, from stored matches and stored coverage, for
    artifacts of `kinds`."""
    kinds = sorted(set(kinds))
    exceeding = match_exceeds_condition(policies, kinds)
    condition = Q(Exists(Match.objects.filter(exceeding, record=OuterRef("pk"))))
    for kind in kinds:
        condition |= coverage_exceeds_condition(policies, kind)
    return condition | restatement_condition(policies)


def at_most_threshold_condition(policies: Policies, kinds: Iterable[str]) -> Q:
    """A Q on Record: its best overlap does not pass the threshold of its best artifact's kind
    (the near-miss side of the rule's comparison)."""
    kinds = sorted(set(kinds))
    default = policies.threshold_for("")
    condition = ~SQL.greater("best_overlap", default) & ~Q(best_artifact__kind__in=kinds)
    for kind in kinds:
        condition |= Q(best_artifact__kind=kind) & ~SQL.greater(
            "best_overlap", policies.threshold_for(kind)
        )
    return condition


def stored_coverage(coverage: dict[str, float], matches: Iterable) -> dict[str, dict]:
    """The per-kind coverage worth keeping on a record: what a threshold change needs to redo
    the rule's "several artifacts of one kind" half without the text."""
    floor = report_floor()
    kept = {}
    for kind, share in coverage.items():
        if share < floor:
            continue  # a threshold is never below the floor, so this can never decide
        of_kind = [m for m in matches if m.kind == kind]
        kept[kind] = {
            "coverage": round(share, 6),
            "artifacts": len(of_kind),
            "shared": sum(m.shared for m in of_kind),
        }
    return kept


def derived_by_rows(
    *,
    match_record,
    match_overlap,
    match_shared,
    coverage,
    coverage_artifacts,
    coverage_shared,
    threshold: float,
    min_shared: int,
):
    """The rule on arrays, for one kind at one threshold: which of n records it calls derived.

    match_record, match_overlap, match_shared: one entry per stored match with an artifact of
    the kind (match_record the record's position, 0..n-1); coverage, coverage_artifacts,
    coverage_shared: one entry per record (0 where it has none)."""
    import numpy as np

    by_match = match_exceeds(
        match_overlap, match_shared, threshold=threshold, min_shared=min_shared
    )
    derived = np.bincount(match_record[by_match], minlength=len(coverage)) > 0
    return derived | coverage_exceeds(
        coverage, coverage_artifacts, coverage_shared, threshold=threshold, min_shared=min_shared
    )
