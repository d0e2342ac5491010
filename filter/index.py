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

from filter.segments import MAX_REPEATS, Segment, expand_ranges, kept_repeats

__all__ = ["MAX_REPEATS", "LeftOut", "ShingleIndex", "SortedShingles", "expand_ranges"]

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
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, "LeftOut"]:
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
            return (*_kept(found, numbers, positions, removed), left_out)
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
    depend on it (DerivedFilter._candidates). A few hundred entries cost less to read than
    to set aside and fetch again for the pairs chosen."""
    return max(256, n_artifacts // 1000)


def _kept(found, numbers, positions, removed):
    if removed is None or not len(numbers):
        return found, numbers, positions
    kept = ~np.isin(numbers, removed)
    return found[kept], numbers[kept], positions[kept]


class LeftOut:
    """The record shingles a distinctive lookup left out: their positions in the shingles
    looked up (ascending), and where each one's entries lie, a row for each segment that holds
    some (the segment, the first entry, the number of entries; rows[bounds[i]:bounds[i + 1]]
    are positions[i]'s), in postings an index never changes in place."""

    __slots__ = ("positions", "bounds", "segment", "starts", "counts", "_segments", "_removed")

    def __init__(self, positions, bounds, segment, starts, counts, segments, removed=None):
        self.positions, self.bounds = positions, bounds
        self.segment, self.starts, self.counts = segment, starts, counts
        self._segments, self._removed = segments, removed

    def _of(self, numbers: np.ndarray) -> "LeftOut":
        """The same shingles, each row narrowed to the entries of `numbers` (sorted)."""
        every = np.full(len(self.starts), len(numbers), dtype=np.int64)  # a row
        rows, _, starts, counts = self._narrowed(np.zeros_like(every), every, numbers)
        row_bounds = np.repeat(np.arange(len(self.positions)), np.diff(self.bounds))
        bounds = np.zeros(len(self.positions) + 1, dtype=np.int64)
        np.cumsum(np.bincount(row_bounds[rows], minlength=len(self.positions)), out=bounds[1:])
        return LeftOut(
            self.positions,
            bounds,
            self.segment[rows],
            starts,
            counts,
            self._segments,
            self._removed,
        )

    def entries_of(self, first, last, wanted) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The entries of the artifacts wanted[first[i]:last[i]] (ascending in each range)
        at each left-out position i, for a whole batch at once: (record position, index in
        `wanted`, artifact position) of each: the entries put_back(only=) adds for those
        artifacts, in no set order (passages do not depend on their anchors' order)."""
        row_of = np.repeat(np.arange(len(self.positions)), np.diff(self.bounds))
        rows, which, starts, counts = self._narrowed(first[row_of], last[row_of], wanted)
        at = np.repeat(self.positions[row_of[rows]], counts)
        which = np.repeat(which, counts)
        numbers, places = [], []
        for segment, part in _by_segment(self.segment[rows]):
            entries = expand_ranges(starts[part], counts[part])
            numbers.append(self._segments[segment].postings[entries, 0])
            places.append(self._segments[segment].postings[entries, 1])
        numbers = np.concatenate(numbers) if numbers else _EMPTY_U32
        places = np.concatenate(places) if places else _EMPTY_U32
        if len(self.segment) and len(np.unique(self.segment[rows])) > 1:
            # _by_segment grouped the rows by segment: back to the positions' order
            order = np.argsort(np.repeat(self.segment[rows], counts), kind="stable")
            at, which = at[order], which[order]
        if self._removed is not None and len(numbers):
            kept = ~np.isin(numbers, self._removed)
            at, which, places = at[kept], which[kept], places[kept]
        return at, which, places

    def where(self, keep: np.ndarray) -> "LeftOut":
        """The left-out shingles `keep` marks (a bool for each position)."""
        kept = np.flatnonzero(keep)
        sizes = np.diff(self.bounds)[kept]
        rows = expand_ranges(self.bounds[kept], sizes)
        return LeftOut(
            self.positions[kept],
            np.concatenate(([0], np.cumsum(sizes))),
            self.segment[rows],
            self.starts[rows],
            self.counts[rows],
            self._segments,
            self._removed,
        )

    def most_of_one(self) -> np.ndarray:
        """For each left-out position, the most entries one artifact has there (an artifact
        may hold a shingle up to MAX_REPEATS times): the most anchors the position gives any
        one artifact, which bounds what a record's boilerplate adds to any one pair. An
        artifact is in one segment, so it is the most of any of the position's rows."""
        most = np.zeros(len(self.counts), dtype=np.int64)
        for segment, part in _by_segment(self.segment):
            rows = np.arange(len(self.counts))[part]
            most[rows] = self._segments[segment].most_of_one(self.starts[rows], self.counts[rows])
        of_position = np.zeros(len(self.positions), dtype=np.int64)
        row_position = np.repeat(np.arange(len(self.positions)), np.diff(self.bounds))
        np.maximum.at(of_position, row_position, most)
        return of_position

    def _narrowed(self, first, last, wanted):
        """(row, index in `wanted`, first entry, entries) for each row and each artifact of
        wanted[first[row]:last[row]] the row holds entries of, rows in order and each one's
        artifacts in order: a hash's entries are in artifact order within a segment (a
        stable sort of artifacts added in order), so each artifact's are found by a search
        of the row, all rows' searches at once."""
        spans = np.asarray(last, dtype=np.int64) - first
        rows = np.repeat(np.arange(len(spans)), spans)
        which = expand_ranges(first, spans)
        numbers = np.asarray(wanted, dtype=np.int64)[which]
        lo, hi = np.empty(len(rows), dtype=np.int64), np.empty(len(rows), dtype=np.int64)
        for segment, part in _by_segment(self.segment[rows]):
            asked = rows[part]  # ascending: each distinct row once, and each item's
            new = np.concatenate(([True], asked[1:] != asked[:-1]))
            distinct = asked[new]
            lo[part], hi[part] = _entry_bounds(
                self._segments[segment].postings[:, 0],
                self.starts[distinct].astype(np.int64),
                self.counts[distinct].astype(np.int64),
                np.cumsum(new) - 1,
                numbers[part],
            )
        kept = np.flatnonzero(hi > lo)
        return rows[kept], which[kept], lo[kept], (hi - lo)[kept]

    @classmethod
    def empty(cls) -> "LeftOut":
        return cls(_EMPTY_U32, np.zeros(1, dtype=np.int64), _EMPTY_U32, _EMPTY_U32, _EMPTY_U32, [])

    @classmethod
    def one_segment(cls, positions, starts, counts, segment, removed=None) -> "LeftOut":
        zeros = np.zeros(len(positions), dtype=np.uint32)
        bounds = np.arange(len(positions) + 1)
        return cls(positions, bounds, zeros, starts, counts, [segment], removed)

    def __len__(self) -> int:
        return len(self.positions)

    def __getitem__(self, part: slice) -> "LeftOut":
        lo, hi, _ = part.indices(len(self.positions))
        hi = max(lo, hi)
        first, last = int(self.bounds[lo]), int(self.bounds[hi])
        rows = slice(first, last)
        return LeftOut(
            self.positions[lo:hi],
            self.bounds[lo : hi + 1] - first,
            self.segment[rows],
            self.starts[rows],
            self.counts[rows],
            self._segments,
            self._removed,
        )

    def put_back(self, anchors: tuple, *, only=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The distinctive `anchors` (record position, artifact number, artifact position) of
        the same shingles with these left-out ones' entries added: what lookup() gives, in
        its order (record positions ascending, each one's entries in the index's order).
        With `only` (artifact numbers), the entries of those artifacts alone: what lookup()
        gives of them."""
        if not len(self.positions):
            return anchors
        if only is not None:
            return self._of(np.unique(np.asarray(only, dtype=np.uint32))).put_back(anchors)
        row_positions = np.repeat(self.positions, np.diff(self.bounds))
        found, numbers, places = [anchors[0]], [anchors[1]], [anchors[2]]
        # rows grouped by segment (stably: each segment's rows keep their order), segments in
        # order: only the segments that hold some are read
        by_segment = np.argsort(self.segment, kind="stable")
        segment_ids = self.segment[by_segment]
        cuts = np.flatnonzero(np.diff(segment_ids)) + 1
        for rows in np.split(by_segment, cuts) if len(by_segment) else ():
            postings = self._segments[int(self.segment[rows[0]])].postings
            counts = self.counts[rows]
            entries = expand_ranges(self.starts[rows], counts)
            found.append(np.repeat(row_positions[rows], counts))
            numbers.append(postings[entries, 0])
            places.append(postings[entries, 1])
        found, numbers, places = (np.concatenate(a) for a in (found, numbers, places))
        # a record position is either distinctive or left out, never both: a stable sort by it
        # interleaves the two and keeps each one's entries in order (segments in order)
        order = np.argsort(found, kind="stable")
        return _kept(found[order].astype(np.uint32), numbers[order], places[order], self._removed)


def _by_segment(segment: np.ndarray):
    """(segment, indices of `segment` equal to it) for each segment present, in order: the
    whole range when all are one segment (as they are but for an index between merges)."""
    if not len(segment):
        return
    if segment[0] == segment[-1] and (segment == segment[0]).all():
        yield int(segment[0]), slice(None)
        return
    for one in np.unique(segment).tolist():
        yield one, np.flatnonzero(segment == one)


# Rows of up to this many entries in all are laid out and searched together; longer ones (a
# stock phrase in a great many artifacts) are searched in place.
_LAID_OUT = 1 << 17


def _entry_bounds(column: np.ndarray, starts, counts, of_row, values, laid_out=_LAID_OUT):
    """[first, last) of the entries equal to values[i] in row of_row[i], the rows being
    column[starts[r]:starts[r] + counts[r]], each ascending."""
    if int(counts.sum()) <= laid_out:
        # the rows one after another, keyed (row, artifact): ascending, so one search a side
        # finds every item's entries, where a search step at a time costs numpy's per-call
        # overhead twenty times over
        offsets = np.cumsum(counts) - counts
        keys = np.repeat(np.arange(len(counts), dtype=np.int64), counts) << 32
        keys |= column[expand_ranges(starts, counts)]
        asked = (of_row.astype(np.int64) << 32) | values
        shift = (starts - offsets)[of_row]
        return (
            shift + np.searchsorted(keys, asked, side="left"),
            shift + np.searchsorted(keys, asked, side="right"),
        )
    lo, end = starts[of_row], (starts + counts)[of_row]
    first = _search(column, lo, end, values, right=False)
    return first, _search(column, first, end, values, right=True)


def _search(column: np.ndarray, lo, hi, values, *, right: bool) -> np.ndarray:
    """For each i, the first index in column[lo[i]:hi[i]] (ascending) whose value is not below
    values[i] (right: not at or below it), as np.searchsorted of each range gives it: every
    range's binary search a step at a time, together."""
    lo, hi = lo.copy(), hi.copy()
    active = np.flatnonzero(lo < hi)
    while len(active):
        mid = (lo[active] + hi[active]) // 2
        found = column[mid]
        wanted = values[active]
        after = found <= wanted if right else found < wanted
        lo[active[after]] = mid[after] + 1
        hi[active[~after]] = mid[~after]
        active = active[lo[active] < hi[active]]
    return lo
