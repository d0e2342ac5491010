"""The derived rule's clauses (filter.decision) in the two other forms the app needs: as SQL,
and on numpy arrays, for the tuning page's estimates over every threshold at once. Both are
built by handing the one rule other operators, so they say what filter.decide says (tests/rules
checks they agree on thousands of random cases). Decisions themselves, with their cuts, are
filter.decide's alone (poimen.decision.stored_decisions on stored data).

They read what a record stores: its matches (overlap, shared), per kind its coverage by several
artifacts (filter.decide.coverage_facts), and its coverage across kinds (filter.decide.
mixed_facts, Record.mixed_coverage).
"""

import operator
from collections.abc import Iterable
from dataclasses import replace

from django.db.models import Exists, OuterRef, Q

from filter.decision import (
    Operators,
    across_kinds,
    across_kinds_in_force,
    coverage_exceeds,
    match_exceeds,
    mixed_coverage_exceeds,
)
from poimen.decision.policies import Policies
from poimen.decision.restatements import restatement_condition
from poimen.models import Match

# The rule's comparisons as lookups: the left operand is a field path, the right a value.
SQL = Operators(
    greater=lambda field, value: Q(**{f"{field}__gt": value}),
    at_least=lambda field, value: Q(**{f"{field}__gte": value}),
    both=operator.and_,
)


def _coverage_fields(kind: str) -> tuple[str, str, str]:
    """Where a record keeps its coverage by several artifacts of `kind`
    (filter.decide.coverage_facts)."""
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


# Where a record keeps its coverage across kinds (filter.decide.mixed_facts).
MIXED_FIELDS = ("mixed_coverage__coverage", "mixed_coverage__n_kinds", "mixed_coverage__shared")


def mixed_coverage_condition(policies: Policies, kinds: Iterable[str]) -> Q:
    """A Q on Record: artifacts of several kinds together decide it, at the highest threshold
    (and min_shared) of the kinds involved. The highest is not known until the row is read, so
    the rule is asked at every kind's own threshold: for each kind, the record does not involve
    it, or its coverage across kinds exceeds that kind's threshold. `kinds` must hold every kind
    a record's coverage across kinds may name (every artifact kind)."""
    condition = Q(mixed_coverage__has_key="coverage")
    for kind in sorted(set(kinds)):
        condition &= ~Q(mixed_coverage__kinds__has_key=kind) | mixed_coverage_exceeds(
            *MIXED_FIELDS,
            threshold=policies.threshold_for(kind),
            min_shared=policies.min_shared_for(kind),
            ops=SQL,
        )
    return condition


def derived_condition(policies: Policies, kinds: Iterable[str]) -> Q:
    """The filter's decision as a Q on Record, from stored matches and stored coverage, for
    artifacts of `kinds` (every kind there is: see mixed_coverage_condition)."""
    kinds = sorted(set(kinds))
    exceeding = match_exceeds_condition(policies, kinds)
    condition = Q(Exists(Match.objects.filter(exceeding, record=OuterRef("pk"))))
    for kind in kinds:
        condition |= coverage_exceeds_condition(policies, kind)
    condition |= mixed_coverage_condition(policies, kinds)
    return condition | restatement_condition(policies)


def mixed_exceeds_stored(mixed: dict, policies: Policies) -> bool:
    """The rule's "artifacts of several kinds" half on a record's stored coverage across kinds
    (filter.decide.mixed_facts), under `policies`."""
    if not mixed:
        return False
    threshold, min_shared = across_kinds_in_force(policies, mixed["kinds"])
    return bool(
        mixed_coverage_exceeds(
            mixed["coverage"],
            mixed["n_kinds"],
            mixed["shared"],
            threshold=threshold,
            min_shared=min_shared,
        )
    )


def without_kind(policies: Policies, kind: str) -> Policies:
    """`policies` with `kind` unable to decide anything: its threshold at 1, which no overlap
    or coverage (a share of the record) exceeds. What keeps a record derived whatever `kind`'s
    threshold is derived_condition under these, across kinds included."""
    return replace(policies, thresholds={**policies.thresholds, kind: 1.0})


def at_most_threshold_condition(policies: Policies, kinds: Iterable[str]) -> Q:
    """A Q on Record: its best overlap does not pass the threshold of its best artifact's kind
    (the near-miss side of the rule's comparison)."""
    kinds = sorted(set(kinds))
    default = policies.default_threshold
    # The record's copy of the kind ("" without a best artifact): no join, and the lists'
    # indexes carry it.
    condition = ~SQL.greater("best_overlap", default) & ~Q(best_artifact_kind__in=kinds)
    for kind in kinds:
        condition |= Q(best_artifact_kind=kind) & ~SQL.greater(
            "best_overlap", policies.threshold_for(kind)
        )
    return condition


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
    mixed_coverage=None,
    mixed_kinds=None,
    mixed_shared=None,
    mixed_threshold_others=None,
    mixed_min_shared_others=None,
):
    """The rule on arrays, for one kind at one threshold: which of n records it calls derived.

    match_record, match_overlap, match_shared: one entry per stored match with an artifact of
    the kind (match_record the record's position, 0..n-1); coverage, coverage_artifacts,
    coverage_shared: one entry per record (0 where it has none). mixed_*: one entry per record,
    its coverage across kinds where that involves the kind (0 elsewhere), and the highest
    threshold and min_shared of the other kinds it involves: the threshold in force across
    kinds is then the highest of those and `threshold`."""
    import numpy as np

    by_match = match_exceeds(
        match_overlap, match_shared, threshold=threshold, min_shared=min_shared
    )
    derived = np.bincount(match_record[by_match], minlength=len(coverage)) > 0
    derived |= coverage_exceeds(
        coverage, coverage_artifacts, coverage_shared, threshold=threshold, min_shared=min_shared
    )
    if mixed_coverage is None:
        return derived
    return derived | mixed_coverage_exceeds(
        mixed_coverage,
        mixed_kinds,
        mixed_shared,
        threshold=across_kinds(threshold, mixed_threshold_others),
        min_shared=across_kinds(min_shared, mixed_min_shared_others),
    )
