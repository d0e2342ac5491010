"""What a check says of a record: a Verdict, its Matches with artifacts, and the coverage
across kinds of its matches (the values filter.decide's rule reads)."""

from dataclasses import field

from filter.align import Alignment
from filter.artifacts import ArtifactRecord
from filter.decision import match_exceeds, mixed_coverage_exceeds
from filter.frozen import frozen_record


@frozen_record
class Match:
    """How much of one record and one artifact line up, and whether that is too much."""

    artifact: ArtifactRecord
    overlap: float
    threshold: float
    artifact_containment: float
    record_containment: float
    shared: int
    min_shared: int
    alignments: tuple[Alignment, ...] = ()

    @property
    def kind(self) -> str:
        return self.artifact.kind

    @property
    def exceeds(self) -> bool:
        """Derived by this match alone (filter.decision.match_exceeds)."""
        return match_exceeds(
            self.overlap, self.shared, threshold=self.threshold, min_shared=self.min_shared
        )


@frozen_record
class MixedCoverage:
    """How much of a record the reported matches of several kinds cover together, and the
    threshold in force across them (filter.decision.mixed_coverage_exceeds)."""

    coverage: float
    kinds: tuple[str, ...]  # sorted; two or more
    shared: int
    threshold: float  # the highest of the kinds' thresholds
    min_shared: int  # the highest of their min_shared

    @property
    def exceeds(self) -> bool:
        return mixed_coverage_exceeds(
            self.coverage,
            len(self.kinds),
            self.shared,
            threshold=self.threshold,
            min_shared=self.min_shared,
        )


@frozen_record
class Verdict:
    derived: bool
    matches: list[Match]
    # kind -> share of the record's tokens inside passages of any artifact of that kind
    coverage: dict[str, float] = field(default_factory=dict)
    # the Match that decided, or the kind whose coverage did, or the MixedCoverage, or None
    decided_by: "Match | str | MixedCoverage | None" = None
    n_tokens: int = 0
    # the reported matches' coverage across kinds, when they are of two kinds or more
    mixed: MixedCoverage | None = None

    @property
    def best(self) -> Match | None:
        return self.matches[0] if self.matches else None

    @classmethod
    def unmatched(cls, n_tokens: int) -> "Verdict":
        """The verdict of a record that matches no artifact."""
        return cls(derived=False, matches=[], n_tokens=n_tokens)
