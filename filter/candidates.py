"""Which artifacts a record is compared with: its candidates, the (record, artifact) pairs
whose shared anchors could make a Match count, chosen for a whole batch at once.
"""

import numpy as np

from filter import speedups
from filter.align import MAX_GAP
from filter.artifact_table import ArtifactTable


def candidates(
    artifacts: ArtifactTable,
    min_overlap: float,
    owner,
    artifact_no,
    n_tokens: list[int],
    slack=None,
):
    """(record, [artifact numbers]) for the records with artifacts that could make a Match
    count, judged by the anchors given (`owner` says whose record each is, None: all of
    record 0), slack[record] anchors more counted for each pair (the record's boilerplate
    left out of those given: a bound on what any one pair holds of it).

    The bounds are exact: a match holds no more shared shingles than its anchors, so one
    with fewer than its kind's min_shared never exceeds; and a passage of n anchors spans
    at most n * MAX_GAP tokens in either text, so one with fewer than that cannot reach
    min_overlap of the smaller text. Boilerplate (filter.index.boilerplate_run) counts as
    the slack while candidates are chosen, and as each pair's own entries once they are
    (check_many): what the index calls boilerplate changes a check's cost, never its
    candidates.
    """
    tokens, min_shared = artifacts.tokens, artifacts.min_shared
    if not len(artifact_no):
        return
    compiled = speedups.compiled
    if compiled is not None:
        yield from compiled.candidates(
            owner,
            artifact_no,
            tokens,
            min_shared,
            np.asarray(n_tokens, dtype=np.int64),
            min_overlap,
            MAX_GAP,
            slack,
        )
        return
    if owner is None:  # one record's anchors
        owner = np.zeros(len(artifact_no), dtype=np.int64)
    keys, counts = np.unique(owner * len(tokens) + artifact_no, return_counts=True)
    records, numbers = np.divmod(keys, len(tokens))
    if slack is not None:
        counts = counts + np.asarray(slack, dtype=np.int64)[records]
    smaller = np.minimum(tokens[numbers], np.asarray(n_tokens, dtype=np.int64)[records])
    keep = (counts >= min_shared[numbers]) & (counts * MAX_GAP >= min_overlap * smaller)
    records, numbers = records[keep].tolist(), numbers[keep].tolist()
    # pairs are sorted, so each record's candidates are together
    start = 0
    for end in range(1, len(records) + 1):
        if end == len(records) or records[end] != records[start]:
            yield records[start], numbers[start:end]
            start = end


def exact(chosen: list, anchors: tuple, n_tokens: list[int], left_owner, choose) -> list:
    """`chosen` with the pairs of its records that have boilerplate (left_owner: whose each
    left-out shingle is) chosen again by `choose` (candidates under a filter's settings) from
    all their anchors (owner, artifact_no: the distinctive ones and the chosen pairs'
    boilerplate entries): a pair not chosen before has no boilerplate entry, and did not
    reach its bound even with all of the record's counted for it."""
    owner, artifact_no = anchors
    again = np.zeros(len(n_tokens), dtype=bool)
    again[left_owner] = True
    in_chosen = np.zeros(len(n_tokens), dtype=bool)
    in_chosen[[record for record, _ in chosen]] = True
    again &= in_chosen
    mine = again[owner]
    chosen_again = dict(choose(owner[mine], artifact_no[mine], n_tokens))
    return [
        (record, chosen_again[record] if again[record] else numbers)
        for record, numbers in chosen
        if not again[record] or record in chosen_again
    ]


def pairs(chosen: list, n_texts: int):
    """(record, artifact number) of each pair of `chosen` as two arrays, and where each
    record's pairs are in them: pairs[first[record]:last[record]]."""
    records = np.array([record for record, _ in chosen], dtype=np.int64)
    sizes = np.array([len(numbers) for _, numbers in chosen], dtype=np.int64)
    numbers = np.fromiter(
        (n for _, of_record in chosen for n in of_record), np.int64, int(sizes.sum())
    )
    first, last = np.zeros(n_texts, dtype=np.int64), np.zeros(n_texts, dtype=np.int64)
    last[records] = np.cumsum(sizes)
    first[records] = last[records] - sizes
    return np.repeat(records, sizes), numbers, first, last
