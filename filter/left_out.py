"""What a distinctive lookup left out (filter/index.py's lookup_distinctive): the record
shingles an index holds too many entries of to read them all for every record, and where
their entries lie, so that they are read only for the artifacts a record may match, for a
whole batch at once, without probing the index again.
"""

import numpy as np

from filter.segments import expand_ranges

_EMPTY_U32 = np.empty(0, dtype=np.uint32)


def kept(found, numbers, positions, removed):
    """The entries whose artifact is not removed (a tombstone)."""
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
        return kept(found[order].astype(np.uint32), numbers[order], places[order], self._removed)


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
