"""One segment of the shingle index: the entries of a run of artifacts, sorted, never changed.

An entry is 12 bytes: the low 32 bits of its hash (`keys`), then its artifact number and
position side by side (`postings`: one cache line read for both). The hash's top bits are the
directory slot the entry sits in (0.5 to 1 byte a shingle), so a lookup matches a shingle on
its top `directory bits` and low 32 bits together, 40 to 64 bits of the 64: two different
shingles are taken as one with a chance under 10**-8 a probe, a stray anchor that no passage
keeps. A bitmap of 1 to 2 bytes a shingle in front turns most record shingles away before they
cost a directory read. With both, 13.5 to 15 bytes a shingle.

The full hashes (8 bytes a shingle) are kept beside the entries only for merges and for the
pure-Python lookup: a compiled lookup never reads them, so in a memory-mapped segment their
pages stay on disk. Within a slot, entries are sorted by key, equal keys in the order the
artifacts were added (a stable sort): the order one build of everything gives, whichever
segments an index is made of.

A segment is saved to a file once and opened memory-mapped, read-only, by every process of
the machine: the page cache holds one copy (filter/index.py's SegmentStore keeps the files).
"""

import json
import mmap
import os
from pathlib import Path

import numpy as np

from filter import speedups

_EMPTY_U32 = np.empty(0, dtype=np.uint32)
KEY_BITS = 32
_LOW = np.uint64((1 << KEY_BITS) - 1)

# A shingle repeated within one artifact more often than this keeps only its first positions:
# aligning "test test test …" with itself would otherwise cost (record x artifact) anchors.
MAX_REPEATS = 8
# Segment.most_of_one reads a row up to this long each time it is asked, a longer one once.
REMEMBERED_ROW = 4096

# Most record shingles are in no artifact, yet fall in a directory slot that holds some other
# hash; a bitmap of 8 bits a shingle, small enough to stay in cache, turns nine in ten of them
# away before they cost a directory read and a comparison.
_BITMAP_BITS_PER_SHINGLE = 8

# Entries a directory slot holds on average, 4 to 8: a slot's keys fill a cache line, and the
# directory (4 bytes a slot) stays a small part of the index and in cache.
_SHINGLES_PER_SLOT = 8


def _bitmap_bits(n_shingles: int) -> int:
    # the bitmap reads the low bits, which the keys hold: at most KEY_BITS of them
    return min(KEY_BITS, max(16, (max(n_shingles, 1) * _BITMAP_BITS_PER_SHINGLE - 1).bit_length()))


def _directory_bits(n_shingles: int) -> int:
    """Bits of hash the directory is indexed by (at most 32: the sort key's high half)."""
    return min(32, max(8, ((max(n_shingles, 1) - 1) // _SHINGLES_PER_SLOT).bit_length()))


def kept_repeats(shingles: np.ndarray) -> np.ndarray:
    """Positions of `shingles` to index: each hash's first MAX_REPEATS occurrences."""
    order = np.argsort(shingles, kind="stable")
    ordered = shingles[order]
    group_start = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    group_sizes = np.diff(np.concatenate((group_start, [len(ordered)])))
    rank = np.arange(len(ordered)) - np.repeat(group_start, group_sizes)
    return np.sort(order[rank < MAX_REPEATS])


def sort_keys(hashes: np.ndarray, shift: int) -> np.ndarray:
    """What a segment sorts and matches by: the directory slot, then the low 32 bits."""
    hashes = np.asarray(hashes, dtype=np.uint64)
    return ((hashes >> np.uint64(shift)) << np.uint64(KEY_BITS)) | (hashes & _LOW)


def _bit_masks(bits: np.ndarray) -> np.ndarray:
    return np.left_shift(1, (bits & np.uint64(7)).astype(np.uint8), dtype=np.uint8)


_ARRAYS = (("keys", np.uint32), ("postings", np.uint32), ("directory", np.uint32))
_ARRAYS += (("bitmap", np.uint8), ("hashes", np.uint64))
_MAGIC = b"poimen-segment-1\n"
_ALIGN = 64


class Segment:
    """The entries of artifacts numbered [first, end), sorted; immutable."""

    __slots__ = (
        "keys",
        "postings",
        "directory",
        "bitmap",
        "hashes",
        "shift",
        "bitmap_mask",
        "first",
        "end",
        "_sorted",
        "_most",
    )

    def __init__(self, hashes, postings, first: int, end: int, *, arrays: dict | None = None):
        """`hashes` and `postings` ((artifact, position) rows) already in the segment's order;
        `arrays` the directory, bitmap and keys when read from a file."""
        self.hashes, self.postings = hashes, postings
        self.first, self.end = first, end
        self._most: dict[int, int] = {}  # a long row's first entry -> most_of_one's answer
        n = len(hashes)
        self.shift = 64 - _directory_bits(n)
        self.bitmap_mask = (1 << _bitmap_bits(n)) - 1
        self._sorted = None
        if arrays is not None:
            self.keys, self.directory, self.bitmap = (
                arrays[k] for k in ("keys", "directory", "bitmap")
            )
            return
        self.keys = (hashes & _LOW).astype(np.uint32)
        slots = np.bincount(
            (hashes >> np.uint64(self.shift)).astype(np.int64), minlength=1 << (64 - self.shift)
        )
        self.directory = np.zeros(len(slots) + 1, dtype=np.uint32)
        np.cumsum(slots, out=self.directory[1:])
        self.bitmap = np.zeros((self.bitmap_mask + 1) // 8, dtype=np.uint8)
        bits = hashes & np.uint64(self.bitmap_mask)
        np.bitwise_or.at(self.bitmap, bits >> np.uint64(3), _bit_masks(bits))

    @classmethod
    def build(cls, added: list[tuple[int, np.ndarray]]) -> "Segment":
        """A segment of artifacts (number, shingles), numbers ascending."""
        kept = [kept_repeats(shingles).astype(np.uint32) for _, shingles in added]
        hashes = np.concatenate([s[p] for (_, s), p in zip(added, kept, strict=True)])
        postings = np.empty((len(hashes), 2), dtype=np.uint32)
        postings[:, 0] = np.repeat(
            np.array([number for number, _ in added], dtype=np.uint32), [len(p) for p in kept]
        )
        postings[:, 1] = np.concatenate(kept)
        return cls.from_entries(hashes, postings, added[0][0], added[-1][0] + 1)

    @classmethod
    def merged(cls, segments: list["Segment"], removed=frozenset()) -> "Segment":
        """One segment of `segments` (in artifact order), without the artifacts `removed`."""
        hashes = np.concatenate([s.hashes for s in segments])
        postings = np.concatenate([s.postings for s in segments])
        if removed:
            kept = ~np.isin(postings[:, 0], np.fromiter(removed, dtype=np.uint32))
            hashes, postings = hashes[kept], postings[kept]
        return cls.from_entries(hashes, postings, segments[0].first, segments[-1].end)

    @classmethod
    def from_entries(cls, hashes, postings, first, end) -> "Segment":
        """A segment of entries (hash, (artifact, position) rows) in the order they were
        added, holding artifacts numbered [first, end)."""
        order = np.argsort(sort_keys(hashes, 64 - _directory_bits(len(hashes))), kind="stable")
        return cls(hashes[order], postings[order], first, end)

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def nbytes(self) -> int:
        """What a compiled lookup reads: the keys, postings, directory and bitmap."""
        return self.keys.nbytes + self.postings.nbytes + self.directory.nbytes + self.bitmap.nbytes

    def most_of_one(self, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """For each row (a key's entries, postings[start:start + count], in artifact order),
        the most entries one artifact has in it. A row of more than REMEMBERED_ROW entries is
        read once and remembered: a segment never changes, and boilerplate (the header every
        injected block shares, a million entries) comes back in record after record."""
        starts, counts = np.asarray(starts, dtype=np.int64), np.asarray(counts, dtype=np.int64)
        most = np.zeros(len(starts), dtype=np.int64)
        short = np.flatnonzero(counts <= REMEMBERED_ROW)
        if len(short):
            numbers = self.postings[expand_ranges(starts[short], counts[short]), 0]
            row_of = np.repeat(np.arange(len(short)), counts[short])
            runs = np.flatnonzero(
                np.concatenate(([True], (numbers[1:] != numbers[:-1]) | (np.diff(row_of) != 0)))
            )
            lengths = np.diff(np.append(runs, len(numbers)))
            np.maximum.at(most, short[row_of[runs]], lengths)
        for row in np.flatnonzero(counts > REMEMBERED_ROW).tolist():
            start = int(starts[row])
            if start not in self._most:
                numbers = self.postings[start : start + int(counts[row]), 0]
                runs = np.flatnonzero(numbers[1:] != numbers[:-1])
                self._most[start] = int(np.diff(runs, prepend=-1, append=len(numbers) - 1).max())
            most[row] = self._most[start]
        return most

    def ranges(self, shingles: np.ndarray, max_run: int) -> tuple:
        """(record positions, artifact numbers, artifact positions) of the shingles with at
        most `max_run` entries here (all, when max_run < 0), and for the others (positions,
        first entries, entry counts): ShingleIndex.lookup_distinctive on this segment."""
        compiled = speedups.compiled
        if compiled is not None:
            arrays, n = compiled.lookup(
                np.ascontiguousarray(shingles, dtype=np.uint64),
                self.keys,
                self.postings,
                self.directory,
                self.bitmap,
                self.shift,
                self.bitmap_mask,
                max_run,
            )
            arrays = np.frombuffer(arrays, dtype=np.uint32)
            m = (len(arrays) - 3 * n) // 3
            left = arrays[3 * n :]
            return (
                arrays[:n],
                arrays[n : 2 * n],
                arrays[2 * n : 3 * n],
                left[:m],
                left[m : 2 * m],
                left[2 * m :],
            )
        # The compiled lookup finds a key's entries through the directory; this one by a
        # binary search of the sort keys, and the two must agree (tests/filter).
        if self._sorted is None:
            self._sorted = sort_keys(self.hashes, self.shift)
        bits = shingles & np.uint64(self.bitmap_mask)
        maybe = np.flatnonzero(self.bitmap[bits >> np.uint64(3)] & _bit_masks(bits))
        wanted = sort_keys(shingles[maybe], self.shift)
        starts = np.searchsorted(self._sorted, wanted, side="left")
        counts = np.searchsorted(self._sorted, wanted, side="right") - starts
        boilerplate = counts > max_run if max_run >= 0 else np.zeros(len(counts), dtype=bool)
        left = [a[boilerplate].astype(np.uint32) for a in (maybe, starts, counts)]
        counts[boilerplate] = 0
        hit = np.flatnonzero(counts)
        counts = counts[hit]
        entries = expand_ranges(starts[hit], counts)
        found = np.repeat(maybe[hit], counts).astype(np.uint32)
        return (found, self.postings[entries, 0], self.postings[entries, 1], *left)

    def save(self, path: Path) -> None:
        """Write the segment to `path` at once (a reader never sees half a file)."""
        header = {"first": self.first, "end": self.end, "n": len(self), "offsets": {}}
        offset = 4096  # the header's room
        for name, _ in _ARRAYS:
            header["offsets"][name] = offset
            offset += -(-getattr(self, name).nbytes // _ALIGN) * _ALIGN
        text = _MAGIC + json.dumps(header).encode("ascii") + b"\n"
        if len(text) > 4096:
            raise ValueError("segment header over 4096 bytes")
        partial = path.with_name(path.name + f".{os.getpid()}.partial")
        with open(partial, "wb") as out:
            out.write(text.ljust(4096, b"\0"))
            for name, _ in _ARRAYS:
                out.seek(header["offsets"][name])
                out.write(np.ascontiguousarray(getattr(self, name)).tobytes())
        # no fsync: a store is a cache of what the database holds, made again if lost
        os.replace(partial, path)

    @classmethod
    def open(cls, path: Path) -> "Segment":
        """The segment in `path`, memory-mapped read-only: shared with every other process
        that opens it, and only the pages a lookup reads are read from disk."""
        with open(path, "rb") as file:
            head = file.read(4096)
        if not head.startswith(_MAGIC):
            raise ValueError(f"{path}: not a poimen index segment")
        header = json.loads(head[len(_MAGIC) :].split(b"\n", 1)[0])
        n = header["n"]
        n_slots = (1 << _directory_bits(n)) + 1
        lengths = {"keys": n, "postings": 2 * n, "directory": n_slots, "hashes": n}
        lengths["bitmap"] = (1 << _bitmap_bits(n)) // 8
        with open(path, "rb") as file:  # the mapping outlives the file object (and the file)
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        # a plain array over the mapping: np.memmap's subclass costs a call on every slice
        whole = np.frombuffer(mapped, dtype=np.uint8)
        last = max(header["offsets"][name] for name, _ in _ARRAYS)
        if len(whole) < last + lengths["hashes"] * 8:
            raise ValueError(f"{path}: a segment cut short ({len(whole)} bytes)")
        arrays = {}
        for name, dtype in _ARRAYS:
            start = header["offsets"][name]
            size = lengths[name] * np.dtype(dtype).itemsize
            arrays[name] = whole[start : start + size].view(dtype)
        arrays["postings"] = arrays["postings"].reshape(n, 2)
        return cls(
            arrays["hashes"], arrays["postings"], header["first"], header["end"], arrays=arrays
        )


def expand_ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The indices of every [start, start + count) range, one after another."""
    starts, counts = np.asarray(starts, dtype=np.int64), np.asarray(counts, dtype=np.int64)
    offsets = np.cumsum(counts) - counts
    return np.repeat(starts - offsets, counts) + np.arange(int(counts.sum()))
