"""From shared shingles (anchors) to passages: aligned stretches of record and artifact.

An anchor (i, j) says the shingle at record token i equals the one at artifact token j. A
verbatim copy puts all its anchors on one diagonal (j - i constant). A changed word removes
the k anchors that cover it, leaving a gap on the same diagonal; an inserted or deleted word
shifts the diagonal by one. So: cut the anchors into runs along each diagonal (gaps allowed),
then chain runs that follow one another in both texts. Gaps inside a passage count as
covered: a copy with a word in ten changed is one passage, not a scatter of fragments.
"""

from collections.abc import Iterable, Iterator
from itertools import repeat
from typing import NamedTuple

import numpy as np

from filter import speedups

# Largest step, in tokens, between consecutive anchors of one passage, in either text. One
# changed word leaves a step of k + 1; two close together leave a little more.
MAX_GAP = 12
# Fewest anchors a passage needs: a stock phrase shared by chance makes one or two.
MIN_ANCHORS = 3
# Two passages of at least MIN_ANCHORS anchors each that follow one another at most this far
# apart in both texts are one passage: a cluster of edits (three words changed in ten) breaks
# the anchors for longer than MAX_GAP, but a copy goes on on both sides of it. Chance anchors
# never make a passage this long on their own, so bridging cannot make one of them.
MAX_BRIDGE = 2 * MAX_GAP
# A pathological record (one word repeated thousands of times) must not make chaining
# quadratic: beyond this many runs only the longest are chained.
MAX_RUNS = 2000


class Alignment(NamedTuple):
    """A passage in token coordinates: [start, end) in each text, and the anchors it holds. A
    named tuple: a batch makes thousands, each from a row of align_pairs' array."""

    record_start: int
    record_end: int
    artifact_start: int
    artifact_end: int
    shared: int


def alignments_of(rows: Iterable[list[int]]) -> Iterator[Alignment]:
    """Alignments of align_pairs' rows (five ints each), each made as a named tuple's own
    __new__ makes one (tuple.__new__), without a Python call a row."""
    return map(tuple.__new__, repeat(Alignment), rows)


def _runs(record_pos: np.ndarray, artifact_pos: np.ndarray) -> list[list[int]]:
    """Anchors cut into runs along each diagonal: [i_first, i_last, j_first, j_last, count]."""
    record_pos = record_pos.astype(np.int64)
    artifact_pos = artifact_pos.astype(np.int64)
    diagonal = artifact_pos - record_pos
    order = np.lexsort((record_pos, diagonal))
    record_pos, artifact_pos, diagonal = record_pos[order], artifact_pos[order], diagonal[order]
    cut = (np.diff(diagonal) != 0) | (np.diff(record_pos) > MAX_GAP)
    firsts = np.flatnonzero(np.concatenate(([True], cut)))
    lasts = np.concatenate((firsts[1:], [len(record_pos)])) - 1
    counts = lasts - firsts + 1
    if len(firsts) > MAX_RUNS:
        keep = np.sort(np.argsort(-counts, kind="stable")[:MAX_RUNS])
        firsts, lasts, counts = firsts[keep], lasts[keep], counts[keep]
    return np.column_stack(
        (record_pos[firsts], record_pos[lasts], artifact_pos[firsts], artifact_pos[lasts], counts)
    ).tolist()


def _chain(runs: list[list[int]]) -> list[list[int]]:
    """Join runs that follow one another closely in both texts into chains."""
    runs.sort(key=lambda run: (run[0], -run[4]))
    chains: list[list[int]] = []
    # Runs come in record order, so a chain that ends more than MAX_GAP before the current run
    # can never be extended again: only the others are worth looking at.
    active: list[list[int]] = []
    for i_first, i_last, j_first, j_last, count in runs:
        active = [chain for chain in active if chain[1] >= i_first - MAX_GAP]
        best, best_step = None, 0
        for chain in active:
            step_i, step_j = i_first - chain[1], j_first - chain[3]
            if (
                0 < step_i
                and 0 < step_j <= MAX_GAP
                and (best is None or step_i + step_j < best_step)
            ):
                best, best_step = chain, step_i + step_j
        if best is None:
            chain = [i_first, i_last, j_first, j_last, count]
            chains.append(chain)
            active.append(chain)
        else:
            best[1], best[3], best[4] = i_last, j_last, best[4] + count
    return chains


def _bridge(chains: list[list[int]]) -> list[list[int]]:
    """Join passages of MIN_ANCHORS anchors or more that follow one another within MAX_BRIDGE
    tokens in both texts."""
    chains.sort(key=lambda chain: chain[0])
    joined: list[list[int]] = []
    for chain in chains:
        for earlier in reversed(joined[-4:]):
            step_i, step_j = chain[0] - earlier[1], chain[2] - earlier[3]
            if 0 < step_i <= MAX_BRIDGE and 0 < step_j <= MAX_BRIDGE:
                earlier[1], earlier[3], earlier[4] = chain[1], chain[3], earlier[4] + chain[4]
                break
        else:
            joined.append(chain)
    return joined


def align(record_pos: np.ndarray, artifact_pos: np.ndarray, k: int) -> list[Alignment]:
    """The passages of one record-artifact pair, disjoint in the record, in record order."""
    if len(record_pos) < MIN_ANCHORS:
        return []
    chains = _bridge(
        [chain for chain in _chain(_runs(record_pos, artifact_pos)) if chain[4] >= MIN_ANCHORS]
    )
    # Longest first; a chain mostly inside one already kept is an echo of a repeated phrase.
    chains.sort(key=lambda chain: (chain[1] - chain[0], chain[4]), reverse=True)
    kept: list[Alignment] = []
    for i_first, i_last, j_first, j_last, count in chains:
        start, end = i_first, i_last + k
        inside = sum(
            max(0, min(end, other.record_end) - max(start, other.record_start)) for other in kept
        )
        if inside * 2 > end - start:
            continue
        kept.append(Alignment(start, end, j_first, j_last + k, count))
    kept.sort(key=lambda alignment: alignment.record_start)
    return kept


def align_pairs(
    record_pos: np.ndarray, artifact_no: np.ndarray, artifact_pos: np.ndarray, numbers, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """align() of a batch's anchors with each artifact in `numbers` (the anchors of artifact n
    are those whose artifact_no is n) as arrays: counts[w], how many passages numbers[w] has,
    and the passages, one row (record_start, record_end, artifact_start, artifact_end, shared)
    each, those of numbers[0] first. In C where filter/_speedups.c is built."""
    compiled = speedups.compiled
    if compiled is None:
        found = _align_each(record_pos, artifact_no, artifact_pos, numbers, k)
        counts = np.fromiter(map(len, found), np.int64, len(found))
        rows = [
            (a.record_start, a.record_end, a.artifact_start, a.artifact_end, a.shared)
            for passages in found
            for a in passages
        ]
        return counts, np.array(rows, dtype=np.int64).reshape(len(rows), 5)
    counts, passages = compiled.align_many(
        np.ascontiguousarray(record_pos),
        np.ascontiguousarray(artifact_no),
        np.ascontiguousarray(artifact_pos),
        numbers,
        k,
        MAX_GAP,
        MIN_ANCHORS,
        MAX_BRIDGE,
        MAX_RUNS,
    )
    passages = np.frombuffer(passages, dtype=np.int64)
    return np.frombuffer(counts, dtype=np.int64), passages.reshape(len(passages) // 5, 5)


def align_many(
    record_pos: np.ndarray, artifact_no: np.ndarray, artifact_pos: np.ndarray, numbers, k: int
) -> list[list[Alignment]]:
    """align_pairs as Alignments: a list of passages for each number."""
    counts, passages = align_pairs(record_pos, artifact_no, artifact_pos, numbers, k)
    found = list(map(Alignment._make, passages.tolist()))
    bounds = np.concatenate(([0], np.cumsum(counts))).tolist()
    return [found[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]


def _align_each(record_pos, artifact_no, artifact_pos, numbers, k) -> list[list[Alignment]]:
    """align() of each number's anchors, in Python: each artifact's anchors in their order (a
    stable sort), found by a binary search."""
    order = np.argsort(artifact_no, kind="stable")
    grouped = np.asarray(artifact_no)[order]
    passages = []
    for number in numbers:
        lo, hi = np.searchsorted(grouped, (number, number + 1))
        rows = order[lo:hi]
        passages.append(align(record_pos[rows], artifact_pos[rows], k))
    return passages


def covered(intervals: list[tuple[int, int]]) -> int:
    """How many positions the union of [start, end) intervals holds."""
    total, reach = 0, None
    for start, end in sorted(intervals):
        if reach is None or start >= reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total
