"""From a batch's passages to its verdicts: every candidate pair measured, and every record's
matches reported, in arrays for the whole batch at once.

A pair's passages (filter.align.align_pairs) give its Match's measures: the tokens they cover
in each text (their union: passages may overlap a little), the anchors they hold, the longest
of them. A record's give its coverage by kind and across kinds. Only the reported matches
become objects (filter.verdict), and the rule that decides is filter.decide's, asked once for
each record that has any: arrays measure, the rule decides. A one-record check takes the same
steps in plain Python (verdict_of_one), where numpy's calls would cost more than its pairs.
"""

from typing import Protocol

import numpy as np

from filter import speedups
from filter.align import alignments_of, covered
from filter.artifact_table import ArtifactTable
from filter.decide import BY_COVERAGE, BY_MATCH, Facts, coverage_facts, deciding, mixed_facts
from filter.decision import across_kinds_in_force, match_exceeds
from filter.verdict import Match, MixedCoverage, Verdict


class Settings(Protocol):
    """What measuring reads of a filter (filter.DerivedFilter is one)."""

    min_overlap: float
    paste_words: int

    def threshold_for(self, kind: str) -> float: ...
    def min_shared_for(self, kind: str) -> int: ...


def covered_by_group(group, start, end, n_groups: int) -> np.ndarray:
    """filter.align.covered for many groups at once: how many positions the union of each
    group's [start, end) intervals holds, the intervals in any order. In C where
    filter/_speedups.c is built (one call where numpy takes a dozen: a one-record check pays
    for calls, not for intervals)."""
    compiled = speedups.compiled
    if compiled is not None:
        columns = (np.ascontiguousarray(column) for column in (group, start, end))
        return np.frombuffer(compiled.covered_by_group(*columns, n_groups), np.int64)
    if not len(group):
        return np.zeros(n_groups, dtype=np.int64)
    order = np.lexsort((start, group))
    group, start, end = group[order], start[order], end[order]
    # each group shifted past the one before it, so that one running maximum serves them all
    shift = group * (int(end.max()) + 1)
    start, end = start + shift, end + shift
    reach = np.concatenate(([-1], np.maximum.accumulate(end)[:-1]))
    added = np.maximum(end - np.maximum(start, reach), 0)
    return np.bincount(group, added, n_groups).astype(np.int64)


def containments(record_covered, artifact_covered, n_tokens, artifact_tokens, larger=np.maximum):
    """A match's share of the record, of the artifact, and its overlap (the larger): of numpy
    arrays, or of numbers with larger=max (verdicts and verdict_of_one ask it)."""
    of_record = record_covered / n_tokens
    of_artifact = artifact_covered / larger(artifact_tokens, 1)
    return of_record, of_artifact, larger(of_record, of_artifact)


def reported(overlap, exceeds, kind_coverage, longest, across, *, floor: float, paste_words: int):
    """Which measured matches are reported (verdicts says why): bools or boolean arrays."""
    return (
        across | (overlap >= floor) | exceeds | (kind_coverage >= floor) | (longest >= paste_words)
    )


def verdicts(
    settings: Settings,
    artifacts: ArtifactTable,
    pair_record: np.ndarray,
    numbers: np.ndarray,
    counts: np.ndarray,
    passages: np.ndarray,
    n_tokens,
) -> dict[int, Verdict]:
    """The verdict of each record with a match (a candidate pair with a passage), by record:
    pair p is (pair_record[p], numbers[p]) with counts[p] of `passages` (align_pairs' rows),
    the pairs of each record together, in the order their matches rank among equals. Reported
    are the matches a decision can ever use, at any threshold from min_overlap up: those from
    min_overlap up, those of a kind whose coverage reaches it, all of a record's when their
    coverage across kinds does, and those with a passage of paste_words words or more (a
    pasted paragraph, cut whatever the record's overlap). What is stored of a record is then
    all a decision taken again needs. A batch of one (the API's, an adapter's) is measured
    by verdict_of_one."""
    if len(n_tokens) == 1:
        found = verdict_of_one(settings, artifacts, numbers, counts, passages, n_tokens[0])
        return {} if found is None else {0: found}
    matched = counts > 0
    if not matched.any():
        return {}
    pair_record, numbers, counts = pair_record[matched], numbers[matched], counts[matched]
    n_pairs, n_records = len(counts), len(n_tokens)
    n_tokens = np.maximum(np.asarray(n_tokens, dtype=np.int64), 1)  # a record matched has some
    pair_of = np.repeat(np.arange(n_pairs), counts)
    first = np.cumsum(counts) - counts
    record_start, record_end, artifact_start, artifact_end, anchors = np.ascontiguousarray(
        passages.T
    )
    owner = pair_record[pair_of]

    # each match: its passages come in record order
    shared = np.add.reduceat(anchors, first)
    longest = np.maximum.reduceat(record_end - record_start, first)
    record_covered = covered_by_group(pair_of, record_start, record_end, n_pairs)
    artifact_covered = covered_by_group(pair_of, artifact_start, artifact_end, n_pairs)
    record_containment, artifact_containment, overlap = containments(
        record_covered, artifact_covered, n_tokens[pair_record], artifacts.tokens[numbers]
    )
    # kinds by their names' order, so that a record's come sorted; each one's settings once
    names = list(artifacts.kind_names)
    rank = np.empty(len(names), dtype=np.int64)
    rank[sorted(range(len(names)), key=names.__getitem__)] = np.arange(len(names))
    kind_names = sorted(names)
    kind = rank[artifacts.kinds[numbers]]
    threshold = np.array([settings.threshold_for(k) for k in kind_names], dtype=np.float64)[kind]
    min_shared = np.array([settings.min_shared_for(k) for k in kind_names], dtype=np.int64)[kind]
    exceeds = match_exceeds(overlap, shared, threshold=threshold, min_shared=min_shared)

    # each record's coverage by kind (all its matches of the kind) and across kinds
    group_of_pair = pair_record * len(names) + kind
    groups, inverse = np.unique(group_of_pair[pair_of], return_inverse=True)
    kind_covered = (
        covered_by_group(inverse, record_start, record_end, len(groups))
        / n_tokens[groups // len(names)]
    )
    kind_coverage = kind_covered[np.searchsorted(groups, group_of_pair)]
    n_kinds = np.bincount(groups // len(names), minlength=n_records)
    every = covered_by_group(owner, record_start, record_end, n_records) / n_tokens
    floor = settings.min_overlap
    across = (n_kinds >= 2) & (every >= floor)
    shown = reported(
        overlap,
        exceeds,
        kind_coverage,
        longest,
        across[pair_record],
        floor=floor,
        paste_words=settings.paste_words,
    )
    # what the reported matches cover together (coverage across kinds is theirs)
    kept = shown[pair_of]
    reported_cover = (
        covered_by_group(owner[kept], record_start[kept], record_end[kept], n_records) / n_tokens
    )

    # the reported matches of each record, best first: exceeding, then overlap, then shared
    ranked = np.lexsort((np.arange(n_pairs), -shared, -overlap, ~exceeds, pair_record))
    ranked = ranked[shown[ranked]]
    rows = passages.tolist()  # (only the reported matches' become Alignments)
    matches_of: dict[int, list[Match]] = {}
    for record, artifact, over, limit, of_artifact, of_record, both, least, lo, hi in zip(
        pair_record[ranked].tolist(),
        artifacts.take(numbers[ranked].tolist()),
        *(
            column[ranked].tolist()
            for column in (
                overlap,
                threshold,
                artifact_containment,
                record_containment,
                shared,
                min_shared,
                first,
                first + counts,
            )
        ),
        strict=True,
    ):
        match = Match(
            artifact,
            over,
            limit,
            of_artifact,
            of_record,
            both,
            least,
            tuple(alignments_of(rows[lo:hi])),
        )
        if record in matches_of:
            matches_of[record].append(match)
        else:
            matches_of[record] = [match]
    coverage_of: dict[int, dict[str, float]] = {}
    for group_key, share in zip(groups.tolist(), kind_covered.tolist(), strict=True):
        record, code = divmod(group_key, len(names))
        coverage_of.setdefault(record, {})[kind_names[code]] = share
    n_tokens = n_tokens.tolist()
    reported_cover = reported_cover.tolist()
    return {
        record: _verdict(
            settings,
            matches_of.get(record, []),
            coverage,
            n_tokens[record],
            reported_cover[record],
        )
        for record, coverage in coverage_of.items()
    }


def verdict_of_one(
    settings: Settings,
    artifacts: ArtifactTable,
    numbers,
    counts: np.ndarray,
    passages: np.ndarray,
    n_tokens: int,
) -> Verdict | None:
    """verdicts() of one record, in plain Python: a one-record check (the API's, an
    adapter's) pays for numpy's calls, not for its few pairs. The same containments, rule
    and reporting (the functions above); tests/filter/test_matcher.py checks check() against
    check_many() on generated records. None when no pair has a passage. `numbers`: a list or
    an array of the record's candidates."""
    rows = list(alignments_of(passages.tolist()))
    floor, lo = settings.min_overlap, 0
    measured = []  # (match, whether it exceeds, its longest passage)
    for number, count in zip(np.asarray(numbers).tolist(), counts.tolist(), strict=True):
        if not count:
            continue
        alignments, lo = tuple(rows[lo : lo + count]), lo + count
        artifact = artifacts[number]
        if count == 1:  # most matches: the covered spans are the passage's own
            ((record_start, record_end, artifact_start, artifact_end, _),) = alignments
            spans = (record_end - record_start, artifact_end - artifact_start)
        else:
            spans = (
                covered([(a.record_start, a.record_end) for a in alignments]),
                covered([(a.artifact_start, a.artifact_end) for a in alignments]),
            )
        of_record, of_artifact, overlap = containments(
            *spans, n_tokens, artifact.n_tokens, larger=max
        )
        shared = sum(a.shared for a in alignments)
        least = settings.min_shared_for(artifact.kind)
        limit = settings.threshold_for(artifact.kind)
        exceeds = match_exceeds(overlap, shared, threshold=limit, min_shared=least)
        longest = max(a.record_end - a.record_start for a in alignments)
        match = Match(artifact, overlap, limit, of_artifact, of_record, shared, least, alignments)
        measured.append((match, exceeds, longest))
    if not measured:
        return None
    spans_of: dict[str, list] = {}
    for match, _, _ in measured:
        spans_of.setdefault(match.kind, []).extend(
            (a.record_start, a.record_end) for a in match.alignments
        )
    coverage = {kind: covered(spans_of[kind]) / n_tokens for kind in sorted(spans_of)}
    every = covered([span for spans in spans_of.values() for span in spans]) / n_tokens
    across = len(spans_of) > 1 and every >= floor
    shown = [
        (match, exceeds)
        for match, exceeds, longest in measured
        if reported(
            match.overlap,
            exceeds,
            coverage[match.kind],
            longest,
            across,
            floor=floor,
            paste_words=settings.paste_words,
        )
    ]
    # best first: exceeding, then overlap, then shared (stable: equals in candidate order)
    shown.sort(key=lambda pair: (pair[1], pair[0].overlap, pair[0].shared), reverse=True)
    matches = [match for match, _ in shown]
    together = covered([(a.record_start, a.record_end) for m in matches for a in m.alignments])
    return _verdict(settings, matches, coverage, n_tokens, together / n_tokens)


def _verdict(
    settings: Settings, reported: list[Match], coverage: dict, n_tokens: int, together: float
) -> Verdict:
    """A record's verdict from its reported matches (best first), its coverage by kind and
    what the reported matches cover together: filter.decide's rule on them."""
    if not reported:  # (then no kind's coverage and no mix reaches the floor either)
        return Verdict(derived=False, matches=[], coverage=coverage, n_tokens=n_tokens)
    mixed = None
    kinds = sorted({m.kind for m in reported})
    if len(kinds) > 1:
        threshold, min_shared = across_kinds_in_force(settings, kinds)
        mixed = MixedCoverage(
            coverage=together,
            kinds=tuple(kinds),
            shared=sum(m.shared for m in reported),
            threshold=threshold,
            min_shared=min_shared,
        )
    floor = settings.min_overlap
    facts = Facts(
        text="",
        matches=reported,
        coverage=coverage_facts(coverage, reported, floor),
        mixed=mixed_facts(mixed, floor),
    )
    _, why = deciding(facts, settings)
    decided_by = None
    if why is not None:
        decided_by = {BY_MATCH: why.match, BY_COVERAGE: why.kind}.get(why.reason, mixed)
    return Verdict(
        derived=why is not None,
        matches=reported,
        coverage=coverage,
        decided_by=decided_by,
        n_tokens=n_tokens,
        mixed=mixed,
    )
