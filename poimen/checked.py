"""What a check leaves of the filter's verdict: small, plain, picklable.

A Verdict holds its artifacts (and their shingle arrays); what ingest, refilter and the API
need of it is little, so it is summarised into a `Checked` where it is made, which is also
what lets worker processes hand verdicts back cheaply.
"""

from dataclasses import dataclass

from filter import DerivedFilter, Verdict

ArtifactKey = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class CheckedMatch:
    artifact: ArtifactKey
    overlap: float
    artifact_containment: float
    record_containment: float
    shared: int
    threshold: float

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


def summarise(verdict: Verdict) -> Checked:
    matches = tuple(
        CheckedMatch(
            artifact=m.artifact.key,
            overlap=m.overlap,
            artifact_containment=m.artifact_containment,
            record_containment=m.record_containment,
            shared=m.shared,
            threshold=m.threshold,
        )
        for m in verdict.matches
    )
    decided = verdict.decided_by
    decided_match, decided_kind = None, None
    if isinstance(decided, str):
        decided_kind = decided
    elif decided is not None:
        decided_kind = decided.kind
        decided_match = matches[verdict.matches.index(decided)]
    return Checked(
        derived=verdict.derived,
        matches=matches,
        coverage=dict(verdict.coverage),
        decided_kind=decided_kind,
        decided_match=decided_match,
    )


def check_texts(derived_filter: DerivedFilter, texts: list[str]) -> list[Checked]:
    return [summarise(verdict) for verdict in derived_filter.check_many(texts)]
