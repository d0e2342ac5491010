"""The shingle index (filter/index.py): which artifact positions a record's shingle finds."""

import numpy as np

from filter import ArtifactRecord
from filter.index import MAX_REPEATS, ShingleIndex


def test_a_shingle_repeated_in_one_artifact_is_indexed_at_its_first_positions_only():
    repetitive = ArtifactRecord.from_text(kind="skill", name="r", text="test " * 200 + "done")
    index = ShingleIndex()
    index.add(0, repetitive.shingles)

    record_pos, _, artifact_pos = index.lookup(repetitive.shingles[:1])

    assert len(record_pos) == MAX_REPEATS
    assert sorted(artifact_pos.tolist()) == list(range(MAX_REPEATS))


def _arrays(index: ShingleIndex) -> list:
    index.merge()
    return [index._hashes, index._postings, index._directory, index._bitmap]


def test_adding_to_a_merged_index_gives_the_arrays_one_build_of_everything_gives():
    """Later artifacts are merged into the sorted arrays (and counted into the directory and
    bitmap where their sizes stay) rather than everything being sorted again: the result
    must be the same, entry for entry, equal hashes across artifacts included."""
    rng = np.random.default_rng(2026)
    pool = rng.integers(0, 2**63, size=3000, dtype=np.uint64)  # shared hashes: equal entries
    texts = [
        np.concatenate([rng.choice(pool, 40), rng.integers(0, 2**63, 300, dtype=np.uint64)])
        for _ in range(40)
    ]
    whole = ShingleIndex()
    for number, shingles in enumerate(texts):
        whole.add(number, shingles)
    expected = _arrays(whole)
    # 12,800 entries: 35 texts and then 1 or 5 more keep the directory's and bitmap's sizes;
    # 10 and then 30 do not.
    for first, steps in ((35, (1, 4)), (35, (5,)), (10, (30,)), (0, (40,))):
        grown = ShingleIndex()
        for number in range(first):
            grown.add(number, texts[number])
        grown.merge()
        number = first
        for step in steps:
            shared = grown.copy()
            before = [a.copy() for a in _arrays(shared)]
            for _ in range(step):
                grown.add(number, texts[number])
                number += 1
            grown.merge()
            # the index copied from is left as it was (a check may be using it)
            assert all(np.array_equal(a, b) for a, b in zip(_arrays(shared), before, strict=True))
        for mine, theirs in zip(_arrays(grown), expected, strict=True):
            assert np.array_equal(mine, theirs)
        probe = np.concatenate([texts[3][:50], texts[-1][:50], pool[:20]])
        for mine, theirs in zip(grown.lookup(probe), whole.lookup(probe), strict=True):
            assert np.array_equal(mine, theirs)


def test_left_out_shingles_put_back_are_what_a_whole_lookup_finds():
    """A distinctive lookup leaves out the shingles of many entries and says where their
    entries lie; put back, for the whole query or for one record's part of it, they give what
    lookup() finds, in its order, without probing the index again."""
    rng = np.random.default_rng(7)
    boilerplate = rng.integers(0, 2**64 - 1, size=30, dtype=np.uint64, endpoint=True)
    index, texts = ShingleIndex(), []
    for number in range(60):
        text = rng.integers(0, 2**64 - 1, size=120, dtype=np.uint64, endpoint=True)
        if number % 2:
            text = np.concatenate([text, boilerplate[: rng.integers(1, 30)], text[:5]])
        index.add(number, text)
        texts.append(text)
    query = np.concatenate([texts[1], boilerplate[::-1], texts[2][:40], boilerplate[:3]])
    cut = len(texts[1]) + 10  # two "records": query[:cut] and query[cut:]
    for max_run in (0, 1, 3, 16, 40):
        *anchors, left_out = index.lookup_distinctive(query, max_run=max_run)
        assert all(
            np.array_equal(a, b)
            for a, b in zip(left_out.put_back(anchors), index.lookup(query), strict=True)
        )
        assert max_run == 40 or len(left_out)
        for start, end in ((0, cut), (cut, len(query))):
            lo, hi = np.searchsorted(anchors[0], (start, end))
            mine_lo, mine_hi = np.searchsorted(left_out.positions, (start, end))
            part = left_out[mine_lo:mine_hi].put_back([a[lo:hi] for a in anchors])
            whole = index.lookup(query[start:end])
            assert np.array_equal(part[0] - start, whole[0])
            assert all(np.array_equal(a, b) for a, b in zip(part[1:], whole[1:], strict=True))
