"""An inverted index from shingle hash to (artifact, position), as sorted numpy arrays.

No Python object per shingle: 8 bytes of hash, then the entry's artifact number and position
side by side (8 bytes: one cache line read for both), a directory of 0.5 to 1 byte a shingle
that maps the top bits of a hash to where its entries start, and a bitmap of 1 to 2 bytes a
shingle in front, so 10**7 artifact shingles take 175-190 MB. A lookup tests the bitmap,
reads one directory slot per record shingle that passes and looks among the few entries there
(about 8, one or two cache lines): its cost follows the record's size, not the number of
artifacts (a binary search would pay ~log2(n) cache misses a shingle). The directory is small
enough to stay in cache where the entries do not: of the lines a probe touches, only the
entries' are read from memory (filter/_speedups.c's lookup, which prefetches them).
"""

import numpy as np

from filter import speedups

_EMPTY_U32 = np.empty(0, dtype=np.uint32)
_EMPTY_U64 = np.empty(0, dtype=np.uint64)


# Most record shingles are in no artifact, yet fall in a directory slot that holds some other
# hash; a bitmap of 8 bits a shingle, small enough to stay in cache, turns nine in ten of them
# away before they cost a directory read and a comparison.
_BITMAP_BITS_PER_SHINGLE = 8


def _bitmap_bits(n_shingles: int) -> int:
    return max(16, (max(n_shingles, 1) * _BITMAP_BITS_PER_SHINGLE - 1).bit_length())


# Entries a directory slot holds on average, 4 to 8: a slot's hashes fill a cache line or two,
# and the directory (4 bytes a slot) stays a small part of the index and in cache. One slot a
# shingle (4 bytes a shingle, 16 MB at 10,000 artifacts) measured slower at that size: a cache
# miss for the slot before the one for the entries.
_SHINGLES_PER_SLOT = 8


def _directory_bits(n_shingles: int) -> int:
    """Bits of hash the directory is indexed by."""
    return max(8, ((max(n_shingles, 1) - 1) // _SHINGLES_PER_SLOT).bit_length())


# A shingle repeated within one artifact more often than this keeps only its first positions:
# aligning "test test test …" with itself would otherwise cost (record x artifact) anchors.
MAX_REPEATS = 8


def _kept_repeats(shingles: np.ndarray) -> np.ndarray:
    """Positions of `shingles` to index: each hash's first MAX_REPEATS occurrences."""
    order = np.argsort(shingles, kind="stable")
    ordered = shingles[order]
    group_start = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    group_sizes = np.diff(np.concatenate((group_start, [len(ordered)])))
    rank = np.arange(len(ordered)) - np.repeat(group_start, group_sizes)
    return np.sort(order[rank < MAX_REPEATS])


def expand_ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The indices of every [start, start + count) range, one after another."""
    total = int(counts.sum())
    offsets = np.cumsum(counts) - counts
    return np.repeat(starts - offsets, counts) + np.arange(total)


class SortedShingles:
    """One text's shingles sorted for lookups (each hash's first MAX_REPEATS positions)."""

    __slots__ = ("hashes", "positions")

    def __init__(self, shingles: np.ndarray):
        kept = _kept_repeats(shingles)
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
    def __init__(self):
        self._pending: list[tuple[int, np.ndarray]] = []
        self._hashes = _EMPTY_U64
        # entry e's artifact number and position: _postings[e] (artifact, position)
        self._postings = np.empty((0, 2), dtype=np.uint32)
        self._build_directory()

    def add(self, artifact_number: int, shingles: np.ndarray) -> None:
        if len(shingles):
            self._pending.append((artifact_number, shingles))

    def copy(self) -> "ShingleIndex":
        """An index holding the same entries, to add to while this one goes on answering
        lookups: no array of an index is changed in place, so the two share them."""
        twin = ShingleIndex.__new__(ShingleIndex)
        twin.__dict__.update(self.__dict__)
        twin._pending = list(self._pending)
        return twin

    def merge(self) -> None:
        """Merge what was added into the arrays now (else the next lookup does): an index
        that several threads look up in must be merged before it is shared."""
        if self._pending:
            self._merge_pending()

    def _merge_pending(self) -> None:
        # Additions are batched and merged on the next lookup: one sort, however many adds.
        kept = [_kept_repeats(shingles).astype(np.uint32) for _, shingles in self._pending]
        hashes = np.concatenate(
            [
                shingles[positions]
                for (_, shingles), positions in zip(self._pending, kept, strict=True)
            ]
        )
        postings = np.empty((len(hashes), 2), dtype=np.uint32)
        postings[:, 0] = np.concatenate(
            [
                np.full(len(positions), number, dtype=np.uint32)
                for (number, _), positions in zip(self._pending, kept, strict=True)
            ]
        )
        postings[:, 1] = np.concatenate(kept)
        self._pending = []
        order = np.argsort(hashes, kind="stable")
        hashes, postings = hashes[order], postings[order]
        old_size, added = len(self._hashes), hashes
        if old_size:
            # Into the sorted arrays, each after the entries of an equal hash it has already:
            # the order one stable sort of everything would give, for a copy of the arrays
            # rather than a sort of them (what adding an artifact to a large index costs).
            at = np.searchsorted(self._hashes, hashes, side="right")
            hashes = np.insert(self._hashes, at, hashes)
            postings = np.insert(self._postings, at, postings, axis=0)
        self._hashes, self._postings = hashes, postings
        if old_size and self._same_shape(old_size):
            self._update_directory(added)
        else:
            self._build_directory()

    def _same_shape(self, old_size: int) -> bool:
        """Whether the directory and the bitmap keep their sizes at the index's new size."""
        new_size = len(self._hashes)
        return _directory_bits(new_size) == _directory_bits(old_size) and _bitmap_bits(
            new_size
        ) == _bitmap_bits(old_size)

    def _update_directory(self, added: np.ndarray) -> None:
        """The directory and bitmap with `added` hashes counted in, as new arrays."""
        slots = np.bincount(
            (added >> self._shift).astype(np.int64), minlength=len(self._directory) - 1
        )
        directory = self._directory.copy()
        directory[1:] += np.cumsum(slots, dtype=np.uint32)
        bitmap = self._bitmap.copy()
        bits = added & self._bitmap_mask
        np.bitwise_or.at(bitmap, bits >> np.uint64(3), _bit_masks(bits))
        self._directory, self._bitmap = directory, bitmap

    def _build_directory(self) -> None:
        bits = _directory_bits(len(self._hashes))
        self._shift = np.uint64(64 - bits)
        slots = np.bincount((self._hashes >> self._shift).astype(np.int64), minlength=1 << bits)
        self._directory = np.zeros(len(slots) + 1, dtype=np.uint32)
        np.cumsum(slots, out=self._directory[1:])
        # The bitmap reads a hash's low bits, the directory its top bits: independent tests.
        self._bitmap_mask = np.uint64((1 << _bitmap_bits(len(self._hashes))) - 1)
        self._bitmap = np.zeros((int(self._bitmap_mask) + 1) // 8, dtype=np.uint8)
        bits = self._hashes & self._bitmap_mask
        np.bitwise_or.at(self._bitmap, bits >> np.uint64(3), _bit_masks(bits))
        # as ints, for the compiled lookup (filter/_speedups.c)
        self._shift_bits, self._bitmap_bits = int(self._shift), int(self._bitmap_mask)

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
        if self._pending:
            self._merge_pending()
        compiled = speedups.compiled
        if compiled is not None:
            arrays, n = compiled.lookup(
                np.ascontiguousarray(shingles, dtype=np.uint64),
                self._hashes,
                self._postings,
                self._directory,
                self._bitmap,
                self._shift_bits,
                self._bitmap_bits,
                -1 if max_run is None else max_run,
            )
            arrays = np.frombuffer(arrays, dtype=np.uint32)
            m = (len(arrays) - 3 * n) // 3
            left = arrays[3 * n :]
            return (
                arrays[:n],
                arrays[n : 2 * n],
                arrays[2 * n : 3 * n],
                LeftOut(left[:m], left[m : 2 * m], left[2 * m :], self._postings),
            )
        # The compiled lookup finds a hash's entries through the directory; this one by a
        # binary search of the sorted hashes, and the two must agree (tests/filter).
        bits = shingles & self._bitmap_mask
        maybe = np.flatnonzero(self._bitmap[bits >> np.uint64(3)] & _bit_masks(bits))
        wanted = shingles[maybe]
        starts = np.searchsorted(self._hashes, wanted, side="left")
        counts = np.searchsorted(self._hashes, wanted, side="right") - starts
        left_out = LeftOut(_EMPTY_U32, _EMPTY_U32, _EMPTY_U32, self._postings)
        if max_run is not None:
            boilerplate = counts > max_run
            left_out = LeftOut(
                maybe[boilerplate].astype(np.uint32),
                starts[boilerplate].astype(np.uint32),
                counts[boilerplate].astype(np.uint32),
                self._postings,
            )
            counts[boilerplate] = 0
        hit = np.flatnonzero(counts)
        if not len(hit):
            return _EMPTY_U32, _EMPTY_U32, _EMPTY_U32, left_out
        counts = counts[hit]
        entries = expand_ranges(starts[hit], counts)
        return (
            np.repeat(maybe[hit], counts).astype(np.uint32),
            self._postings[entries, 0],
            self._postings[entries, 1],
            left_out,
        )

    def __len__(self) -> int:
        return len(self._hashes) + sum(len(shingles) for _, shingles in self._pending)

    @property
    def nbytes(self) -> int:
        if self._pending:
            self._merge_pending()
        return (
            self._hashes.nbytes
            + self._postings.nbytes
            + self._directory.nbytes
            + self._bitmap.nbytes
        )


class LeftOut:
    """The record shingles a distinctive lookup left out: their positions in the shingles
    looked up (ascending), and the first entry and number of entries of each one's hash in the
    postings the lookup read (which an index never changes in place)."""

    __slots__ = ("positions", "starts", "counts", "_postings")

    def __init__(self, positions, starts, counts, postings):
        self.positions, self.starts, self.counts = positions, starts, counts
        self._postings = postings

    def __len__(self) -> int:
        return len(self.positions)

    def __getitem__(self, part: slice) -> "LeftOut":
        return LeftOut(self.positions[part], self.starts[part], self.counts[part], self._postings)

    def put_back(self, anchors: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The distinctive `anchors` (record position, artifact number, artifact position) of
        the same shingles with these left-out ones' entries added: what lookup() gives, in
        its order (record positions ascending, each one's entries in the index's order)."""
        if not len(self.positions):
            return anchors
        entries = expand_ranges(self.starts.astype(np.int64), self.counts.astype(np.int64))
        positions = np.concatenate((anchors[0], np.repeat(self.positions, self.counts)))
        # a record position is either distinctive or left out, never both: a stable sort by it
        # interleaves the two and keeps each one's entries in order
        order = np.argsort(positions, kind="stable")
        return (
            positions[order],
            np.concatenate((anchors[1], self._postings[entries, 0]))[order],
            np.concatenate((anchors[2], self._postings[entries, 1]))[order],
        )


def _bit_masks(bits: np.ndarray) -> np.ndarray:
    return np.left_shift(1, (bits & np.uint64(7)).astype(np.uint8), dtype=np.uint8)
