"""An inverted index from shingle hash to (artifact, position), as three sorted numpy arrays.

No Python object per shingle: 8 bytes of hash, 4 of artifact number and 4 of position, and
a bitmap of 32 bits per shingle in front, so 10**7 artifact shingles take about 200 MB. Most
record shingles are in no artifact: the bitmap turns those away with one memory access each,
and only the few it lets through pay for the binary search. A lookup's cost follows the
record's size, not the number of artifacts.
"""

import numpy as np

_EMPTY_U64 = np.empty(0, dtype=np.uint64)
_EMPTY_U32 = np.empty(0, dtype=np.uint32)
_BITMAP_BITS_PER_SHINGLE = 32  # a false positive for about one record shingle in 32


def _bitmap_shift(n_shingles: int) -> int:
    """How far to shift a hash right to get its bit number in a bitmap for n shingles."""
    bits = max(16, (n_shingles * _BITMAP_BITS_PER_SHINGLE - 1).bit_length())
    return 64 - bits


class ShingleIndex:
    def __init__(self):
        self._pending: list[tuple[int, np.ndarray]] = []
        self._hashes = _EMPTY_U64
        self._artifacts = _EMPTY_U32
        self._positions = _EMPTY_U32
        self._shift = np.uint64(_bitmap_shift(0))
        self._bitmap = np.zeros(1 << (64 - int(self._shift) - 3), dtype=np.uint8)

    def add(self, artifact_number: int, shingles: np.ndarray) -> None:
        if len(shingles):
            self._pending.append((artifact_number, shingles))

    def _merge_pending(self) -> None:
        # Additions are batched and merged on the next lookup: one sort, however many adds.
        hashes = [self._hashes] + [shingles for _, shingles in self._pending]
        artifacts = [self._artifacts] + [
            np.full(len(shingles), number, dtype=np.uint32) for number, shingles in self._pending
        ]
        positions = [self._positions] + [
            np.arange(len(shingles), dtype=np.uint32) for _, shingles in self._pending
        ]
        self._pending = []
        hashes = np.concatenate(hashes)
        order = np.argsort(hashes, kind="stable")
        self._hashes = hashes[order]
        self._artifacts = np.concatenate(artifacts)[order]
        self._positions = np.concatenate(positions)[order]
        self._shift = np.uint64(_bitmap_shift(len(self._hashes)))
        bits = self._hashes >> self._shift
        self._bitmap = np.zeros(1 << (64 - int(self._shift) - 3), dtype=np.uint8)
        np.bitwise_or.at(self._bitmap, bits >> np.uint64(3), _bit_masks(bits))

    def _maybe_present(self, shingles: np.ndarray) -> np.ndarray:
        bits = shingles >> self._shift
        return (self._bitmap[bits >> np.uint64(3)] & _bit_masks(bits)) != 0

    def lookup(self, shingles: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every (record position, artifact number, artifact position) whose hashes are equal."""
        if self._pending:
            self._merge_pending()
        candidates = np.flatnonzero(self._maybe_present(shingles))
        shingles = shingles[candidates]
        lo = np.searchsorted(self._hashes, shingles, side="left")
        hi = np.searchsorted(self._hashes, shingles, side="right")
        counts = hi - lo
        total = int(counts.sum())
        if total == 0:
            return _EMPTY_U32, _EMPTY_U32, _EMPTY_U32
        hit = np.flatnonzero(counts)
        counts = counts[hit]
        # Expand each [lo, hi) range of postings into the indices it holds.
        run_starts = np.repeat(lo[hit] - (np.cumsum(counts) - counts), counts)
        postings = run_starts + np.arange(total)
        record_positions = np.repeat(candidates[hit].astype(np.uint32), counts)
        return record_positions, self._artifacts[postings], self._positions[postings]

    def __len__(self) -> int:
        return len(self._hashes) + sum(len(shingles) for _, shingles in self._pending)

    @property
    def nbytes(self) -> int:
        if self._pending:
            self._merge_pending()
        return (
            self._hashes.nbytes
            + self._artifacts.nbytes
            + self._positions.nbytes
            + self._bitmap.nbytes
        )


def _bit_masks(bits: np.ndarray) -> np.ndarray:
    return np.left_shift(1, (bits & np.uint64(7)).astype(np.uint8), dtype=np.uint8)
