"""The shingle index: shingle hash -> (artifact number, position), in segments.

An index is a few immutable segments (filter/segments.py), each the entries of a run of
artifacts sorted for lookups, and the artifacts added since, merged into a new segment before
the next lookup. A registration so costs the sort of its own shingles, not of the index; small
segments are merged into larger ones (each at least MERGE_FACTOR times the next, as a search
engine's tiers), so an index of n shingles has O(log n) segments, and a store's merges run
in the background (filter/segment_store.py). An artifact removed is a tombstone: its entries
are skipped at lookup and dropped at the next merge that reads them.

A lookup asks every segment and gives what one segment of everything would give, in its
order (record positions ascending, each one's entries in the order the artifacts were added):
which segments an index is made of never changes a verdict (tests/filter/test_index.py).
"""

import numpy as np

from filter.left_out import LeftOut, kept
from filter.segments import MAX_REPEATS, Segment, expand_ranges, kept_repeats

__all__ = ["MAX_REPEATS", "ShingleIndex", "SortedShingles", "expand_ranges"]

_EMPTY_U32 = np.empty(0, dtype=np.uint32)
_EMPTY_U64 = np.empty(0, dtype=np.uint64)

# A segment is merged into the one before it while it holds more than 1/MERGE_FACTOR of its
# entries: sizes then grow geometrically, and an entry is merged O(log n) times in all.
MERGE_FACTOR = 4


def tiered(segments: tuple, removed=frozenset()) -> tuple:
    """`segments` with the small ones at the end merged until each is at least MERGE_FACTOR
    times the next."""
    segments = list(segments)
    while len(segments) > 1 and len(segments[-1]) * MERGE_FACTOR > len(segments[-2]):
        segments[-2:] = [Segment.merged(segments[-2:], removed)]
    return tuple(segments)


class SortedShingles:
    """One text's shingles sorted for lookups (each hash's first MAX_REPEATS positions)."""

    __slots__ = ("hashes", "positions")

    def __init__(self, shingles: np.ndarray):
        kept = kept_repeats(shingles)
        self.positions = kept[np.argsort(shingles[kept], kind="stable")].astype(np.uint32)
        self.hashes = shingles[self.positions]

    def anchors(self, record: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(record positions, positions here) of the shingles `record` shares with this text,
        the same pairs a lookup in an index holding only this text gives."""
        lo = np.searchsorted(self.hashes, record, side="left")
        counts = np.searchsorted(self.hashes, record, side="right") - lo
        hit = np.flatnonzero(counts)
        if not len(hit):
            return _EMPTY_U32, _EMPTY_U32
        counts = counts[hit]
        return (
            np.repeat(hit, counts).astype(np.uint32),
            self.positions[expand_ranges(lo[hit], counts)],
        )


class ShingleIndex:
    def __init__(self, segments: tuple = ()):
        self._pending: list[tuple[int, np.ndarray]] = []
        self._segments: tuple[Segment, ...] = tuple(segments)
        self._removed: frozenset[int] = frozenset()

    def add(self, artifact_number: int, shingles: np.ndarray) -> None:
        if len(shingles):
            self._pending.append((artifact_number, shingles))

    def remove(self, artifact_number: int) -> None:
        """A tombstone: the artifact's entries are no longer found."""
        self._removed = self._removed | {artifact_number}

    def copy(self) -> "ShingleIndex":
        """An index holding the same entries, to add to while this one goes on answering
        lookups: segments are never changed, so the two share them."""
        twin = ShingleIndex(self._segments)
        twin._pending = list(self._pending)
        twin._removed = self._removed
        return twin

    def using(self, segments, *, removed=(), limit: int | None = None) -> "ShingleIndex":
        """An index of `segments` (a store's, memory-mapped), the artifacts `removed`
        tombstoned and those numbered `limit` or more not found (a store a little ahead of
        the artifacts this process knows)."""
        twin = ShingleIndex(segments)
        twin._removed = frozenset(removed)
        if limit is not None and segments and segments[-1].end > limit:
            twin._removed |= frozenset(range(limit, segments[-1].end))
        return twin

    @property
    def segments(self) -> tuple[Segment, ...]:
        self.merge()
        return self._segments

    def merge(self) -> None:
        """Merge what was added into a segment now (else the next lookup does): an index that
        several threads look up in must be merged before it is shared."""
        if self._pending:
            segments = self._segments + (Segment.build(self._pending),)
            self._pending = []
            self._segments = tiered(segments, self._removed)

    def lookup(self, shingles: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every (record position, artifact number, artifact position) whose hashes are equal."""
        return self.lookup_distinctive(shingles, max_run=None)[:3]

    def lookup_distinctive(
        self, shingles: np.ndarray, *, max_run: int | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, LeftOut]:
        """As lookup(), leaving out each record shingle the index holds more than `max_run`
        entries of (a stock phrase found in a great many artifacts): choosing candidates by
        their distinctive shingles first spares expanding thousands of boilerplate postings
        for every record. The fourth value says which record positions were left out and
        where their entries lie, so that a record without any needs no second lookup, and one
        with some gets them back (LeftOut.put_back) without probing the index again."""
        self.merge()
        segments = self._segments
        removed = self._removed_array()
        if not segments:
            return _EMPTY_U32, _EMPTY_U32, _EMPTY_U32, LeftOut.empty()
        shingles = np.ascontiguousarray(shingles, dtype=np.uint64)
        if len(segments) == 1:
            found, numbers, positions, *left = segments[0].ranges(
                shingles, -1 if max_run is None else max_run
            )
            left_out = LeftOut.one_segment(*left, segments[0], removed)
            return (*kept(found, numbers, positions, removed), left_out)
        # Every segment's ranges, none expanded: a shingle is boilerplate by its entries in
        # all segments together, as in one segment of everything.
        parts = [segment.ranges(shingles, 0)[3:] for segment in segments]
        rows = [np.concatenate([part[i] for part in parts]) for i in range(3)]
        of_segment = np.repeat(
            np.arange(len(segments), dtype=np.uint32), [len(part[0]) for part in parts]
        )
        order = np.argsort(rows[0], kind="stable")  # by position, then segment
        at, starts, counts = (a[order] for a in rows)
        of_segment = of_segment[order]
        firsts = np.flatnonzero(np.concatenate(([True], at[1:] != at[:-1]))) if len(at) else order
        totals = np.add.reduceat(counts.astype(np.int64), firsts) if len(at) else counts
        boilerplate = np.zeros(len(firsts), dtype=bool) if max_run is None else totals > max_run

        def part(chosen):
            bounds = np.concatenate((firsts, [len(at)]))
            sizes = np.diff(bounds)[chosen]
            in_rows = np.repeat(chosen, np.diff(bounds))
            return LeftOut(
                at[firsts[chosen]],
                np.concatenate(([0], np.cumsum(sizes))),
                of_segment[in_rows],
                starts[in_rows],
                counts[in_rows],
                segments,
                removed,
            )

        empty = (_EMPTY_U32, _EMPTY_U32, _EMPTY_U32)
        return (*part(~boilerplate).put_back(empty), part(boilerplate))

    def _removed_array(self):
        if not self._removed:
            return None
        held = getattr(self, "_removed_held", None)
        if held is None or held[0] is not self._removed:
            held = self._removed_held = (
                self._removed,
                np.fromiter(self._removed, dtype=np.uint32, count=len(self._removed)),
            )
        return held[1]

    def __len__(self) -> int:
        return sum(len(s) for s in self._segments) + sum(len(s) for _, s in self._pending)

    @property
    def nbytes(self) -> int:
        """The bytes a compiled lookup reads (the full hashes kept for merges not counted)."""
        return sum(segment.nbytes for segment in self.segments)


def boilerplate_run(n_artifacts: int) -> int:
    """Postings beyond which a shingle is boilerplate to a lookup of `n_artifacts` (more than
    max(256, 0.1%) of them): its entries are read only for the artifacts a record may match
    (LeftOut), not to choose them. A matter of cost alone: a check's candidates do not
    depend on it (filter.candidates). A few hundred entries cost less to read than
    to set aside and fetch again for the pairs chosen."""
    return max(256, n_artifacts // 1000)
