"""The derived rule (filter.decision) in the two other forms the app needs: as SQL, to apply a
threshold from stored matches, and on numpy arrays, to preview one. Both are built by handing
the one rule other operators, so they say what the matcher says (tests/filter/ and
tests/selectors/ check the three agree on thousands of random cases).

What a threshold change needs of a record is stored with it: its matches (overlap, shared),
per kind, its coverage by several artifacts (`stored_coverage`), and its coverage across kinds
by all its stored matches (`stored_mixed`, Record.mixed_coverage).
"""

import operator
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import replace

from django.db.models import Exists, OuterRef, Q

from filter import tokenise
from filter.align import covered
from filter.decision import (
    Operators,
    across_kinds,
    coverage_exceeds,
    match_exceeds,
    mixed_coverage_exceeds,
)
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


# Where a record keeps its coverage across kinds (see stored_mixed).
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


def across_kinds_in_force(policies: Policies, kinds: Iterable[str]) -> tuple[float, int]:
    """The threshold and min_shared in force across `kinds` (filter.decision.across_kinds)."""
    kinds = sorted(set(kinds))
    return (
        float(across_kinds(*(policies.threshold_for(kind) for kind in kinds))),
        int(across_kinds(*(policies.min_shared_for(kind) for kind in kinds))),
    )


def mixed_exceeds_stored(mixed: dict, policies: Policies) -> bool:
    """The rule's "artifacts of several kinds" half on a record's stored coverage across kinds
    (stored_mixed), under `policies`."""
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
    if not coverage:
        return {}
    floor = report_floor()
    kept = {}
    for kind, share in coverage.items():
        if share < floor:
            continue  # a threshold is never below the floor, so this can never decide
        of_kind = [m for m in matches if m.kind == kind]
        kept[kind] = {
            "coverage": share,  # unrounded, as stored_mixed's
            "artifacts": len(of_kind),
            "shared": sum(m.shared for m in of_kind),
        }
    return kept


def stored_mixed(mixed) -> dict:
    """The coverage across kinds worth keeping on a record (a filter.MixedCoverage, or None):
    what a threshold change needs to redo the rule's "artifacts of several kinds" half. The
    kinds are keys, so that SQL can ask whether a record involves one."""
    if mixed is None or mixed.coverage < report_floor():
        return {}  # a threshold is never below the floor, so this can never decide
    return {
        # unrounded: a threshold set to exactly this value must decide as the matcher does
        "coverage": mixed.coverage,
        "n_kinds": len(mixed.kinds),
        "shared": mixed.shared,
        "kinds": {kind: 1 for kind in mixed.kinds},
    }


def mixed_from_stored(text: str, matches: Iterable) -> dict:
    """stored_mixed from a record's text and its stored matches (kind, shared, spans): what a
    check against every artifact would store, for a refilter that checked one kind only. A
    stored span starts at a token's start and ends at a token's end (filter.redaction.
    passage_spans), so it gives back the matcher's token range exactly."""
    from filter import MixedCoverage

    matches = list(matches)
    kinds = tuple(sorted({m.kind for m in matches}))
    if len(kinds) < 2:
        return {}
    tokens = tokenise(text)
    ranges = [
        (bisect_left(tokens.starts, start), bisect_right(tokens.ends, end))
        for m in matches
        for start, end in m.spans
    ]
    return stored_mixed(
        MixedCoverage(
            coverage=covered(ranges) / max(len(tokens.words), 1),
            kinds=kinds,
            shared=sum(m.shared for m in matches),
            threshold=1.0,  # not stored: the threshold in force is read when deciding
            min_shared=0,
        )
    )


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
