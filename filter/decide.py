"""A record's whole decision, in one function: derived or not, why, what is cut, what is left.

Everything that decides asks `decide`: the app on a fresh check (ingest, the API, refilter, the
queue's workers), on stored matches (a threshold or policy change, its preview and dry run) and
in `verify_derived`. It reads only `Facts` — the reported matches with their passages, the
coverage by kind and across kinds, whether the record restates its session, whether what a cut
leaves still copies something — all of which are stored with a record, so a decision taken
again from the database is the decision a fresh check makes.

The steps:
1. A restatement (a compact summary) is excluded while its kind's threshold is under 1.
2. The derived rule (filter.decision): a match over its kind's threshold, one kind's coverage
   by several artifacts, or coverage across kinds. `decided` names every kind that decides.
3. Pasted paragraphs: a passage of at least its kind's `paste_words` words, more than half of
   its shingles shared (PASTE_DENSITY), of an artifact whose kind redacts is cut even when the
   record as a whole is under every threshold (but 1, which switches a kind off). A quoted
   sentence is far shorter and stays evidence, untouched.
4. A derived record is excluded whole unless every deciding kind redacts. A record that is cut
   (derived, or pasted into) loses the passages of *every* reported match, not only the
   deciding ones: what is left must not copy anything. It is excluded whole instead when fewer
   than MIN_KEPT_WORDS words are left, or when what is left still copies an artifact
   (`remainder_copies`: the matcher still reports a match on the evidence text, checked at
   check time; see `remainder_texts`). The matcher reports every match that could decide at
   a threshold from its floor up, so a remainder it reports nothing on is evidence under any
   policy.

Evidence is then a fixed point: what a decision leaves as evidence, decided again, is evidence
with nothing to cut. The cut does not depend on thresholds (every reported passage), so neither
does `remainder_copies`, and a threshold round trip restores every status.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from filter.decision import (
    PASTE_DENSITY,
    across_kinds_in_force,
    coverage_exceeds,
    match_exceeds,
    mixed_coverage_exceeds,
)
from filter.normalise import word_bytes
from filter.redaction import MIN_KEPT_WORDS, cut_spans, evidence_text, kept_words
from filter.shingles import DEFAULT_PARAMS

Span = tuple[int, int]

# The statuses a decision gives (the app's Record.Status values are these strings).
EVIDENCE, REDACTED, EXCLUDED = "evidence", "redacted", "excluded"

# Why a record was decided as it was (an event's "decided_by").
BY_MATCH = "overlap"
BY_COVERAGE = "coverage"
BY_ACROSS_KINDS = "coverage across kinds"
BY_RESTATEMENT = "restatement"
BY_PASTE = "pasted passage"

# A restatement overlaps its session entirely: excluded while that exceeds its kind's threshold.
RESTATEMENT_OVERLAP = 1.0


class PolicyBook(Protocol):
    """Per-kind settings a decision reads (poimen.decision.policies.Policies is one)."""

    def threshold_for(self, kind: str) -> float: ...
    def min_shared_for(self, kind: str) -> int: ...
    def redacts(self, kind: str) -> bool: ...
    def paste_words_for(self, kind: str) -> int: ...


class MatchFacts(Protocol):
    """A reported match as a decision reads it: a fresh one or a stored one."""

    kind: str
    overlap: float
    shared: int
    spans: Sequence  # its passages as [start, end) character spans of the record
    passage_shared: Sequence  # each passage's shared shingles (empty: not known)


@dataclass(frozen=True)
class Facts:
    """What a decision needs of a record. `coverage`: kind -> {"coverage", "artifacts",
    "shared"} (one kind's coverage by its matches); `mixed`: {"coverage", "n_kinds", "shared",
    "kinds"} or {} (coverage across kinds), both as the app stores them."""

    text: str
    matches: Sequence[MatchFacts] = ()
    coverage: dict = field(default_factory=dict)
    mixed: dict = field(default_factory=dict)
    restatement: str | None = None
    remainder_copies: bool = False


@dataclass(frozen=True)
class Decision:
    """A record's decision. `kind`, `match`, `value`, `threshold` and `shared` name what
    decided (the best exceeding match, the kind with the largest coverage, the coverage across
    kinds, the restatement, or the longest pasted passage), for the event that records it."""

    status: str = EVIDENCE
    # the record copies an artifact, whole or in part (a pasted passage): the filter acted
    derived: bool = False
    reason: str | None = None
    decided: dict = field(default_factory=dict)  # kind -> its deciding matches
    kind: str | None = None
    match: MatchFacts | None = None
    value: float | None = None
    threshold: float | None = None
    shared: int | None = None
    cuts: tuple[Span, ...] = ()
    evidence_text: str = ""


@dataclass(frozen=True)
class _Why:
    reason: str
    kind: str
    match: MatchFacts | None
    value: float
    threshold: float
    shared: int | None


def deciding(facts: Facts, policies: PolicyBook) -> tuple[dict, _Why | None]:
    """The derived rule on a record's facts: kind -> its deciding matches (empty: not derived),
    and what to name. A kind decides by a match over its threshold (its exceeding matches), or
    by its coverage (all its matches); when none does alone and the coverage across kinds
    exceeds, every kind involved decides, with all its matches."""
    by_kind: dict[str, list] = {}
    for match in facts.matches:
        by_kind.setdefault(match.kind, []).append(match)
    decided, best, stitched = {}, None, None
    for kind in sorted(set(by_kind) | set(facts.coverage)):
        threshold, min_shared = policies.threshold_for(kind), policies.min_shared_for(kind)
        exceeding = [
            m
            for m in by_kind.get(kind, [])
            if match_exceeds(m.overlap, m.shared, threshold=threshold, min_shared=min_shared)
        ]
        covered = facts.coverage.get(kind)
        if exceeding:
            decided[kind] = exceeding
            top = max(exceeding, key=lambda m: (m.overlap, m.shared))
            if best is None or (top.overlap, top.shared) > (best.value, best.shared):
                best = _Why(BY_MATCH, kind, top, top.overlap, threshold, top.shared)
        elif covered and coverage_exceeds(
            covered["coverage"],
            covered["artifacts"],
            covered["shared"],
            threshold=threshold,
            min_shared=min_shared,
        ):
            decided[kind] = by_kind.get(kind, [])
            if stitched is None or covered["coverage"] > stitched.value:
                top = max(decided[kind], key=lambda m: (m.overlap, m.shared), default=None)
                stitched = _Why(
                    BY_COVERAGE, kind, top, covered["coverage"], threshold, covered["shared"]
                )
    if decided:
        return decided, best or stitched
    mixed = facts.mixed
    if mixed:
        kinds = sorted(mixed["kinds"])
        threshold, min_shared = across_kinds_in_force(policies, kinds)
        if mixed_coverage_exceeds(
            mixed["coverage"],
            mixed["n_kinds"],
            mixed["shared"],
            threshold=threshold,
            min_shared=min_shared,
        ):
            decided = {kind: by_kind.get(kind, []) for kind in kinds}
            # name the kind with the largest part of the record, and its best match
            largest = max(kinds, key=lambda k: (facts.coverage.get(k, {}).get("coverage", 0), k))
            top = max(by_kind.get(largest, []), key=lambda m: (m.overlap, m.shared), default=None)
            return decided, _Why(
                BY_ACROSS_KINDS, largest, top, mixed["coverage"], threshold, mixed["shared"]
            )
    return {}, None


def pasted(facts: Facts, policies: PolicyBook) -> list[tuple[MatchFacts, Span, int]]:
    """The passages long enough that nobody quotes them as a sentence, and copied: (match,
    span, words) for each passage of at least its kind's paste_words words, more than
    PASTE_DENSITY of whose shingles are shared, of a kind that redacts and can decide (a
    threshold of 1 is a kind switched off: nothing of it is ever cut). A passage whose shared
    shingles are not known (stored before they were kept) is none."""
    found = []
    for match in facts.matches:
        if not policies.redacts(match.kind) or policies.threshold_for(match.kind) >= 1.0:
            continue
        least = policies.paste_words_for(match.kind)
        for (start, end), shared in zip(match.spans, match.passage_shared, strict=False):
            n_words = len(word_bytes(facts.text[start:end]))
            shingles = max(n_words - DEFAULT_PARAMS.k + 1, 1)
            if n_words >= least and shared > PASTE_DENSITY * shingles:
                found.append((match, (start, end), n_words))
    return found


def remainder(text: str, matches: Sequence[MatchFacts]) -> tuple[tuple[Span, ...], str] | None:
    """The cuts of every passage of `matches` and the evidence text they leave, or None when
    too few words are left (filter.redaction.MIN_KEPT_WORDS)."""
    cuts = cut_spans(text, [(s, e) for m in matches for s, e in m.spans])
    if not cuts or kept_words(text, cuts) < MIN_KEPT_WORDS:
        return None
    return tuple(cuts), evidence_text(text, cuts)


def decide(facts: Facts, policies: PolicyBook) -> Decision:
    """The record's decision under `policies` (see the module's docstring)."""
    if facts.restatement is not None:
        threshold = policies.threshold_for(facts.restatement)
        if RESTATEMENT_OVERLAP > threshold:
            return Decision(
                status=EXCLUDED,
                derived=True,
                reason=BY_RESTATEMENT,
                kind=facts.restatement,
                value=RESTATEMENT_OVERLAP,
                threshold=threshold,
            )
    decided, why = deciding(facts, policies)
    if why is None:
        pastes = pasted(facts, policies)
        if not pastes:
            return Decision()
        match, _, n_words = max(pastes, key=lambda p: p[2])
        why = _Why(
            BY_PASTE,
            match.kind,
            match,
            n_words,
            policies.paste_words_for(match.kind),
            match.shared,
        )
        decided = {match.kind: [m for m, _, _ in pastes if m.kind == match.kind]}
    named = {
        "reason": why.reason,
        "decided": decided,
        "kind": why.kind,
        "match": why.match,
        "value": why.value,
        "threshold": why.threshold,
        "shared": why.shared,
    }
    cut = None
    if all(policies.redacts(kind) for kind in decided) and not facts.remainder_copies:
        cut = remainder(facts.text, facts.matches)
    if cut is None:
        return Decision(status=EXCLUDED, derived=True, **named)
    cuts, evidence = cut
    return Decision(
        status=REDACTED,
        derived=True,
        cuts=cuts,
        evidence_text=evidence,
        **named,
    )


def remainder_texts(facts: Facts) -> str | None:
    """What a cut of every reported passage would leave of the record, to be checked again by
    the matcher at check time (`remainder_copies` is whether it still copies an artifact), or
    None when nothing would be cut or too little left for the answer to matter."""
    if not facts.matches:
        return None
    cut = remainder(facts.text, facts.matches)
    return cut[1] if cut else None


def coverage_facts(coverage: dict[str, float], matches: Sequence[MatchFacts], floor: float):
    """The per-kind coverage a decision reads (Facts.coverage), from a check's coverage and
    its reported matches: the kinds covered from `floor` up (below it no threshold can be)."""
    facts = {}
    for kind, share in coverage.items():
        if share < floor:
            continue
        of_kind = [m for m in matches if m.kind == kind]
        facts[kind] = {
            "coverage": share,  # unrounded: a threshold set to exactly it decides as here
            "artifacts": len(of_kind),
            "shared": sum(m.shared for m in of_kind),
        }
    return facts


def mixed_facts(mixed, floor: float) -> dict:
    """The coverage across kinds a decision reads (Facts.mixed) from a MixedCoverage (or
    None): nothing below `floor`. The kinds are keys, so that SQL can ask for one."""
    if mixed is None or mixed.coverage < floor:
        return {}
    return {
        "coverage": mixed.coverage,
        "n_kinds": len(mixed.kinds),
        "shared": mixed.shared,
        "kinds": {kind: 1 for kind in mixed.kinds},
    }
