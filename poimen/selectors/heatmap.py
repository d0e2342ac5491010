"""Which parts of an artifact's text get copied into records most: a heat map over its text
and the records that copy each part.

Every stored match keeps where its passages lie in the artifact (`Match.artifact_ranges`,
word positions of the artifact's tokenised text). The artifact's text is cut into parts: a
line, or, for a long line, a run of at most PART_MAX_WORDS words. A part is copied by a
record when one of the record's passages holds at least one of its words; its count is the
number of such records. The work is bounded: the MAX_MATCHES closest matches are read (the
page says so when there are more), and the counts are numpy arithmetic over (record, part)
pairs, kept in the process while the matches stand.
"""

from dataclasses import dataclass

import numpy as np

from filter import tokenise
from poimen.models import Artifact, Match
from poimen.selectors.cache import decision_version, kept_in_process

PART_MAX_WORDS = 40
# The matches a heat map is made from, closest first.
MAX_MATCHES = 20_000
# Heat levels 1..LEVELS for parts copied at all (0: by none), in equal steps of the most
# copied part's count.
LEVELS = 5
# The records a part's list shows.
PART_RECORDS_LIMIT = 50


@dataclass(frozen=True)
class HeatPart:
    number: int  # 1-based, in text order
    text: str
    records: int
    level: int


@dataclass(frozen=True)
class LegendStep:
    level: int
    low: int
    high: int


@dataclass(frozen=True)
class HeatMap:
    artifact_id: int
    parts: list[HeatPart]
    # matches read: MAX_MATCHES at most, the closest
    matches_read: int
    # matches read that hold no artifact ranges (stored before they were kept)
    without_ranges: int
    most: int
    legend: list[LegendStep]

    @property
    def bounded(self) -> bool:
        return self.matches_read >= MAX_MATCHES


@dataclass(frozen=True)
class _Pairs:
    """The parts (char spans) and each (record, part) a stored passage puts together."""

    part_spans: list[tuple[int, int]]
    records_per_part: np.ndarray
    # A (record, part) pair by the rank of the record's match (0: the closest) and the part's
    # 0-based index; a record has one match with an artifact, so the rank names the record.
    pair_rank: np.ndarray
    pair_part: np.ndarray
    match_ids: np.ndarray  # by rank
    matches_read: int
    without_ranges: int


def _part_spans(text: str) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The text cut into contiguous parts, and for each word of the text its part."""
    tokens = tokenise(text)
    starts = np.array(tokens.starts, dtype=np.int64)
    if not len(starts):
        return [(0, len(text))], np.zeros(0, dtype=np.int64)
    newlines = np.flatnonzero(np.frombuffer(text.encode("utf-32-le"), dtype="<u4") == 10)
    line_starts = np.concatenate(([0], newlines + 1)).astype(np.int64)
    line = np.searchsorted(line_starts, starts, side="right") - 1
    part_of_word = np.zeros(len(starts), dtype=np.int64)
    part_starts = []
    part, count, previous_line = -1, 0, -1
    for word, word_line in enumerate(line.tolist()):
        if word_line != previous_line or count == PART_MAX_WORDS:
            part += 1
            count = 0
            # a part starts at its line's start, or at its first word inside a long line
            at = int(line_starts[word_line]) if word_line != previous_line else int(starts[word])
            part_starts.append(0 if part == 0 else at)
            previous_line = word_line
        part_of_word[word] = part
        count += 1
    ends = part_starts[1:] + [len(text)]
    return list(zip(part_starts, ends, strict=True)), part_of_word


def _pairs(artifact: Artifact) -> _Pairs:
    spans, part_of_word = _part_spans(artifact.text)
    rows = list(
        Match.objects.filter(artifact=artifact)
        .order_by("-overlap", "-id")
        .values_list("id", "artifact_ranges")[:MAX_MATCHES]
    )
    ranks, firsts, lasts = [], [], []
    without = 0
    words = len(part_of_word)
    for rank, (_, ranges) in enumerate(rows):
        if not ranges:
            without += 1
            continue
        for start, end in ranges:
            start, end = max(0, start), min(words, end)
            if start < end:
                ranks.append(rank)
                firsts.append(part_of_word[start])
                lasts.append(part_of_word[end - 1])
    record = np.array(ranks, dtype=np.int64)
    first = np.array(firsts, dtype=np.int64)
    length = np.array(lasts, dtype=np.int64) - first + 1
    # Every part each passage touches, once per (record, part).
    pair_rank = np.repeat(record, length)
    offsets = np.arange(len(pair_rank)) - np.repeat(np.cumsum(length) - length, length)
    pair_part = np.repeat(first, length) + offsets
    if len(pair_rank):
        unique = np.unique(np.stack([pair_part, pair_rank]), axis=1)
        pair_part, pair_rank = unique[0], unique[1]
    return _Pairs(
        part_spans=spans,
        records_per_part=np.bincount(pair_part, minlength=len(spans)),
        pair_rank=pair_rank,
        pair_part=pair_part,
        match_ids=np.array([match_id for match_id, _ in rows], dtype=np.int64),
        matches_read=len(rows),
        without_ranges=without,
    )


def _kept_pairs(artifact: Artifact) -> _Pairs:
    key = f"{artifact.pk}:{decision_version()}"
    return kept_in_process("artifact_heat", key, lambda: _pairs(artifact))


def _level(count: int, most: int) -> int:
    if not count or not most:
        return 0
    return max(1, -(-count * LEVELS // most))


def _legend(most: int) -> list[LegendStep]:
    steps = []
    low = 1
    for level in range(1, LEVELS + 1):
        high = most * level // LEVELS
        if high >= low:
            steps.append(LegendStep(level, low, high))
            low = high + 1
    return steps


def artifact_heatmap(artifact: Artifact) -> HeatMap | None:
    """The heat map of `artifact`'s text (None when only its shingles are known)."""
    if not artifact.text:
        return None
    pairs = _kept_pairs(artifact)
    most = int(pairs.records_per_part.max()) if len(pairs.records_per_part) else 0
    parts = [
        HeatPart(
            number=index + 1,
            text=artifact.text[start:end],
            records=int(count),
            level=_level(int(count), most),
        )
        for index, ((start, end), count) in enumerate(
            zip(pairs.part_spans, pairs.records_per_part.tolist(), strict=True)
        )
    ]
    return HeatMap(
        artifact_id=artifact.pk,
        parts=parts,
        matches_read=pairs.matches_read,
        without_ranges=pairs.without_ranges,
        most=most,
        legend=_legend(most),
    )


@dataclass(frozen=True)
class PartCopies:
    number: int
    text: str
    total: int
    matches: list[Match]


def part_copies(artifact: Artifact, number: int) -> PartCopies | None:
    """The records that copy part `number` of `artifact` (1-based), closest first, up to
    PART_RECORDS_LIMIT; None when there is no such part."""
    if not artifact.text:
        return None
    pairs = _kept_pairs(artifact)
    if not 1 <= number <= len(pairs.part_spans):
        return None
    ranks = np.sort(pairs.pair_rank[pairs.pair_part == number - 1])
    start, end = pairs.part_spans[number - 1]
    closest = pairs.match_ids[ranks[:PART_RECORDS_LIMIT]].tolist()
    matches = list(
        Match.objects.filter(pk__in=closest)
        .select_related("record", "record__review")
        .only(
            "id",
            "overlap",
            "record_id",
            "record__status",
            "record__source",
            "record__external_id",
            "record__review__verdict",
        )
        .order_by("-overlap", "-id")
    )
    return PartCopies(
        number=number, text=artifact.text[start:end], total=len(ranks), matches=matches
    )
