"""What a check leaves of the filter's verdict: small, plain, picklable.

A Verdict holds its artifacts (and their shingle arrays); what ingest, refilter and the API
need of it is little, so it is summarised into a `Checked` where it is made, which is also
what lets worker processes hand verdicts back cheaply.
"""

from dataclasses import dataclass, replace

from filter import DerivedFilter, MixedCoverage, Verdict
from filter.decide import Facts, remainder_texts
from filter.normalise import word_spans
from filter.redaction import passage_spans

ArtifactKey = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class CheckedMatch:
    artifact: ArtifactKey
    overlap: float
    artifact_containment: float
    record_containment: float
    shared: int
    threshold: float
    # its passages as [start, end) character spans of the record, for a redaction
    spans: tuple[tuple[int, int], ...] = ()
    # the same passages as [start, end) word positions of the artifact (its tokenise() words),
    # for the artifact's heat map: cheap here, where the alignments are at hand
    artifact_ranges: tuple[tuple[int, int], ...] = ()
    # each passage's shared shingles, in the order of spans
    passage_shared: tuple[int, ...] = ()

    @property
    def kind(self) -> str:
        return self.artifact[0]


@dataclass(frozen=True, slots=True)
class Checked:
    """The filter's verdict on one record, reduced to what is stored of it."""

    derived: bool
    matches: tuple[CheckedMatch, ...]  # best first, as the filter reported them
    coverage: dict[str, float]
    decided_kind: str | None
    # The match that decided, or None when the kind's coverage did (or nothing did).
    decided_match: CheckedMatch | None
    # The reported matches' coverage across kinds (two kinds or more), and whether it decided:
    # decided_kind is then the involved kind with the largest part of the record.
    mixed: MixedCoverage | None = None
    decided_across_kinds: bool = False
    # What a cut of every matched passage leaves still copies an artifact (filter.decide).
    remainder_copies: bool = False


def summarise(verdict: Verdict, text: str) -> Checked:
    """`verdict` on `text`, reduced. Only a record with matches pays for their spans (the
    record's words' offsets): most records match nothing."""
    spans = word_spans(text) if verdict.matches else None
    matches = tuple(
        CheckedMatch(
            artifact=m.artifact.key,
            overlap=m.overlap,
            artifact_containment=m.artifact_containment,
            record_containment=m.record_containment,
            shared=m.shared,
            threshold=m.threshold,
            spans=tuple(
                passage_spans(spans, ((a.record_start, a.record_end) for a in m.alignments))
            ),
            artifact_ranges=tuple((a.artifact_start, a.artifact_end) for a in m.alignments),
            passage_shared=tuple(a.shared for a in m.alignments),
        )
        for m in verdict.matches
    )
    decided = verdict.decided_by
    decided_match, decided_kind = None, None
    if isinstance(decided, str):
        decided_kind = decided
    elif isinstance(decided, MixedCoverage):
        decided_kind = max(decided.kinds, key=lambda kind: (verdict.coverage.get(kind, 0), kind))
    elif decided is not None:
        decided_kind = decided.kind
        decided_match = matches[verdict.matches.index(decided)]
    return Checked(
        derived=verdict.derived,
        matches=matches,
        coverage=dict(verdict.coverage),
        decided_kind=decided_kind,
        decided_match=decided_match,
        mixed=verdict.mixed,
        decided_across_kinds=isinstance(decided, MixedCoverage),
    )


def check_texts(derived_filter: DerivedFilter, texts: list[str]) -> list[Checked]:
    """Each text checked, with what its decision needs of the matcher: its verdict, and
    whether what a cut would leave of it still copies an artifact."""
    verdicts = derived_filter.check_many(texts)
    checked = [summarise(verdict, text) for verdict, text in zip(verdicts, texts, strict=True)]
    return _with_remainders(derived_filter, texts, checked)


def _with_remainders(
    derived_filter: DerivedFilter, texts: list[str], checked: list[Checked]
) -> list[Checked]:
    """remainder_copies for each record with matches: whether the text a cut of every
    reported passage leaves still has a match the filter reports (from the reporting floor
    up, or a pasted passage). Thresholds are never under the floor, so a remainder without one
    is evidence under any policy; and the cut depends on no threshold, so neither does the
    answer, which a decision taken again from stored data reads."""
    left = {}
    for at, (text, record) in enumerate(zip(texts, checked, strict=True)):
        if record.matches:
            rest = remainder_texts(Facts(text=text, matches=record.matches))
            if rest is not None:
                left[at] = rest
    if not left:
        return checked
    verdicts = derived_filter.check_many(list(left.values()))
    for at, verdict in zip(left, verdicts, strict=True):
        if verdict.matches:
            checked[at] = replace(checked[at], remainder_copies=True)
    return checked
