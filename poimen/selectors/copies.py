"""Every artifact a record copies, and where in the record each one's passages lie: the record
view shows one artifact side by side, and a record stitched from a skill and a reference page
(decided across kinds) would otherwise show only one of them."""

from dataclasses import dataclass

from filter import match_passages
from poimen.decision.artifact_records import artifact_to_record
from poimen.models import Match, Record

# The width the bars of where each artifact's passages lie are drawn on (an SVG's units).
BAR_UNITS = 1000


@dataclass(frozen=True)
class Copy:
    match: Match
    passages: int
    # The record's characters inside this artifact's passages, as a share of the record.
    share: float
    # Where the passages lie along the record, as (x, width) in BAR_UNITS.
    bars: tuple[tuple[float, float], ...]


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def record_copies(record: Record, matches: list[Match]) -> list[Copy]:
    """Each of `matches` (a record's, best first, one per artifact) with its passages in the
    record; an artifact without stored text is aligned by its shingles, as the view does."""
    length = max(len(record.text), 1)
    copies = []
    for match in matches:
        spans = _merged(
            [p.record_span for p in match_passages(record.text, artifact_to_record(match.artifact))]
        )
        copies.append(
            Copy(
                match=match,
                passages=len(spans),
                share=sum(end - start for start, end in spans) / length,
                bars=tuple(
                    (
                        round(start * BAR_UNITS / length, 1),
                        round(max((end - start) * BAR_UNITS / length, 2), 1),
                    )
                    for start, end in spans
                ),
            )
        )
    return copies
