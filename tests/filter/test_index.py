"""The shingle index (filter/index.py): which artifact positions a record's shingle finds."""

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from filter import ArtifactRecord
from filter.index import MAX_REPEATS, ShingleIndex
from filter.left_out import _entry_bounds
from filter.segments import REMEMBERED_ROW, Segment


def test_a_shingle_repeated_in_one_artifact_is_indexed_at_its_first_positions_only():
    repetitive = ArtifactRecord.from_text(kind="skill", name="r", text="test " * 200 + "done")
    index = ShingleIndex()
    index.add(0, repetitive.shingles)

    record_pos, _, artifact_pos = index.lookup(repetitive.shingles[:1])

    assert len(record_pos) == MAX_REPEATS
    assert sorted(artifact_pos.tolist()) == list(range(MAX_REPEATS))


def _random_texts(seed: int, n: int = 40):
    rng = np.random.default_rng(seed)
    pool = rng.integers(0, 2**64 - 1, size=300, dtype=np.uint64, endpoint=True)  # shared
    return [
        np.concatenate([rng.choice(pool, 40), rng.integers(0, 2**63, 300, dtype=np.uint64)])
        for _ in range(n)
    ], pool


def _lookups(index: ShingleIndex, query) -> list:
    """Every answer of `index` to `query`: the whole lookup, and each distinctive lookup with
    what it left out, put back or not."""
    answers = list(index.lookup(query))
    for max_run in (0, 2, 5, 40):
        *anchors, left_out = index.lookup_distinctive(query, max_run=max_run)
        answers += [*anchors, left_out.positions, *left_out.put_back(anchors)]
    return answers


def assert_same(mine: list, theirs: list) -> None:
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs, strict=True):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("seed", range(12))
def test_an_index_in_segments_answers_as_one_segment_of_everything(seed):
    """Artifacts added and merged in steps leave the index in several segments (the small
    ones merged into larger ones): each lookup gives what one build of everything gives,
    equal hashes across artifacts and boilerplate across segments included."""
    texts, pool = _random_texts(2026)
    rng = np.random.default_rng(seed)
    cuts = set(rng.choice(np.arange(1, 40), size=seed % 9, replace=False).tolist())
    whole = ShingleIndex()
    for number, shingles in enumerate(texts):
        whole.add(number, shingles)
    grown = ShingleIndex()
    for number, shingles in enumerate(texts):
        grown.add(number, shingles)
        if number in cuts:
            grown.merge()
    bounds = [0, *sorted(cuts), len(texts)]
    numbered = list(enumerate(texts))
    in_segments = ShingleIndex([Segment.build(numbered[a:b]) for a, b in pairwise(bounds)])
    assert len(in_segments.segments) == len(cuts) + 1 and len(whole.segments) == 1
    probe = np.concatenate([texts[3][:50], texts[-1][:50], pool[:60], pool[:5]])
    expected = _lookups(whole, probe)
    assert_same(_lookups(grown, probe), expected)
    assert_same(_lookups(in_segments, probe), expected)


def test_a_merge_of_segments_is_the_segment_of_everything():
    texts, _ = _random_texts(5, n=12)
    whole = Segment.build(list(enumerate(texts)))
    parts = [Segment.build(list(enumerate(texts))[a:b]) for a, b in ((0, 5), (5, 6), (6, 12))]
    merged = Segment.merged(parts)
    for name in ("keys", "postings", "directory", "bitmap", "hashes"):
        assert np.array_equal(getattr(merged, name), getattr(whole, name)), name
    assert (merged.first, merged.end) == (0, 12)


def test_a_copy_is_left_as_it_was_when_the_index_grows():
    texts, pool = _random_texts(9, n=20)
    index = ShingleIndex()
    for number in range(10):
        index.add(number, texts[number])
    before = index.copy()
    expected = _lookups(before, pool)
    for number in range(10, 20):
        index.add(number, texts[number])
        index.merge()
    assert_same(_lookups(before, pool), expected)


def test_a_removed_artifact_is_found_no_more_and_a_merge_drops_its_entries():
    texts, pool = _random_texts(11, n=10)
    index, without = ShingleIndex(), ShingleIndex()
    for number, shingles in enumerate(texts):
        index.add(number, shingles)
        without.add(number, shingles if number != 4 else shingles[:0])
    index.merge()
    index.add(10, texts[0][:20])  # a second segment
    without.add(10, texts[0][:20])
    index.remove(4)
    probe = np.concatenate([texts[4], pool])
    found = index.lookup(probe)
    assert 4 not in found[1].tolist() and len(found[0])
    assert_same(list(found), list(without.lookup(probe)))
    merged = Segment.merged(index.segments, removed={4})
    assert 4 not in merged.postings[:, 0].tolist()


def test_a_saved_segment_opens_memory_mapped_and_answers_alike(tmp_path):
    texts, pool = _random_texts(13, n=15)
    segment = Segment.build(list(enumerate(texts)))
    segment.save(tmp_path / "one.segment")
    opened = Segment.open(tmp_path / "one.segment")
    assert not opened.keys.flags.owndata and not opened.keys.flags.writeable  # mapped
    for name in ("keys", "postings", "directory", "bitmap", "hashes"):
        assert np.array_equal(getattr(opened, name), getattr(segment, name)), name
    probe = np.concatenate([texts[2], pool])
    assert_same(_lookups(ShingleIndex([opened]), probe), _lookups(ShingleIndex([segment]), probe))


def test_an_entry_takes_at_most_16_bytes_a_shingle():
    texts, _ = _random_texts(17, n=200)
    index = ShingleIndex()
    for number, shingles in enumerate(texts):
        index.add(number, shingles)
    assert index.nbytes / len(index) <= 16


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


@pytest.mark.parametrize("seed", range(4))
def test_left_out_entries_put_back_for_some_artifacts_are_theirs_of_the_whole_lookup(seed):
    """A record's candidates get the boilerplate's entries of their own artifacts only (a
    binary search in each left-out range), in segments or in one: the whole lookup's
    anchors of those artifacts, in its order."""
    texts, pool = _random_texts(seed, n=30)
    rng = np.random.default_rng(seed)
    index = ShingleIndex()
    for number, shingles in enumerate(texts):
        index.add(number, shingles)
        if number in (9, 20):
            index.merge()
    query = np.concatenate([texts[4][:60], pool[:100], texts[25][:30]])
    only = rng.choice(30, size=3, replace=False)
    whole = index.lookup(query)
    wanted = np.isin(whole[1], only)
    for max_run in (0, 2, 5):
        *anchors, left_out = index.lookup_distinctive(query, max_run=max_run)
        mine = left_out.put_back(anchors, only=only)
        kept = np.isin(mine[1], only)
        assert_same([a[kept] for a in mine], [a[wanted] for a in whole])


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    merged_at=st.sets(st.integers(1, 29), max_size=3),
    removed=st.sets(st.integers(0, 29), max_size=3),
    max_run=st.sampled_from([0, 2, 5]),
)
def test_a_batch_of_left_out_entries_is_each_records_put_back_of_its_artifacts(
    seed, merged_at, removed, max_run
):
    """LeftOut.entries_of (check_many's whole batch at once) gives, for each record, the
    entries put_back(only=) adds of that record's artifacts: in segments or one, with
    tombstones, each record asking for its own artifacts."""
    texts, pool = _random_texts(seed % 1000, n=30)
    rng = np.random.default_rng(seed)
    index = ShingleIndex()
    for number, shingles in enumerate(texts):
        index.add(number, shingles)
        if number in merged_at:
            index.merge()
    for number in removed:
        index.remove(number)
    parts = [np.concatenate([texts[rng.integers(30)][:50], rng.choice(pool, 60)]) for _ in range(4)]
    firsts = np.cumsum([0] + [len(p) for p in parts])
    wanted = [np.unique(rng.choice(30, size=rng.integers(0, 6))) for _ in parts]
    *anchors, left_out = index.lookup_distinctive(np.concatenate(parts), max_run=max_run)
    owner = np.searchsorted(firsts, left_out.positions, side="right") - 1
    bounds = np.cumsum([0] + [len(w) for w in wanted])
    at, which, places = left_out.entries_of(
        bounds[:-1][owner], bounds[1:][owner], np.concatenate(wanted)
    )
    numbers = np.concatenate(wanted).astype(np.int64)[which]
    for record, only in enumerate(wanted):
        lo, hi = np.searchsorted(left_out.positions, firsts[record : record + 2])
        none = [a[:0] for a in anchors]
        expected = left_out[lo:hi].put_back(none, only=only)
        mine = (at >= firsts[record]) & (at < firsts[record + 1])
        assert sorted(zip(*(a.tolist() for a in expected), strict=True)) == sorted(
            zip(at[mine].tolist(), numbers[mine].tolist(), places[mine].tolist(), strict=True)
        )


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    merged_at=st.sets(st.integers(1, 29), max_size=3),
    max_run=st.sampled_from([0, 2, 5]),
)
def test_the_most_anchors_a_left_out_shingle_gives_one_artifact(seed, merged_at, max_run):
    """LeftOut.most_of_one, the bound check_many chooses candidates with: for each left-out
    position, the most entries of one artifact put_back adds there (an artifact may hold a
    shingle several times, up to MAX_REPEATS), in segments or one; LeftOut.where keeps the
    positions asked for and their entries."""
    texts, pool = _random_texts(seed % 1000, n=30)
    rng = np.random.default_rng(seed)
    index = ShingleIndex()
    for number, shingles in enumerate(texts):
        repeated = rng.choice(pool, rng.integers(0, 4))
        index.add(number, np.concatenate([shingles, np.repeat(repeated, rng.integers(1, 5))]))
        if number in merged_at:
            index.merge()
    *anchors, left_out = index.lookup_distinctive(rng.choice(pool, 80), max_run=max_run)
    none = [a[:0] for a in anchors]
    found, numbers, places = left_out.put_back(none)
    for i, position in enumerate(left_out.positions.tolist()):
        _, counts = np.unique(numbers[found == position], return_counts=True)
        assert left_out.most_of_one()[i] == counts.max()
    keep = rng.random(len(left_out)) < 0.5
    kept = left_out.where(keep)
    assert kept.positions.tolist() == left_out.positions[keep].tolist()
    mine = np.isin(found, left_out.positions[keep])
    assert_same(kept.put_back(none), [found[mine], numbers[mine], places[mine]])


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.lists(st.integers(0, 40), max_size=30), min_size=1, max_size=8),
    asked=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 41)), max_size=40),
)
def test_a_rows_entries_are_found_laid_out_or_in_place_as_searchsorted_finds_them(rows, asked):
    """A left-out row's entries of one artifact (filter/index.py's _entry_bounds): rows laid
    out and searched together (most batches) and rows searched in place, a step at a time
    (a stock phrase in a great many artifacts), both give np.searchsorted of the row."""
    column = np.concatenate([np.sort(np.array(r, dtype=np.uint32)) for r in rows])
    counts = np.array([len(r) for r in rows], dtype=np.int64)
    starts = np.cumsum(counts) - counts
    asked = [(row % len(rows), value) for row, value in asked]
    of_row = np.array([row for row, _ in asked], dtype=np.int64)
    values = np.array([value for _, value in asked], dtype=np.int64)
    expected = [
        [
            start + np.searchsorted(column[start : start + count], value, side=side)
            for start, count, value in zip(starts[of_row], counts[of_row], values, strict=True)
        ]
        for side in ("left", "right")
    ]
    for laid_out in (0, len(column)):
        found = _entry_bounds(column, starts, counts, of_row, values, laid_out=laid_out)
        assert [part.tolist() for part in found] == expected


def test_a_long_rows_most_of_one_artifact_is_read_once_and_remembered():
    """A boilerplate row longer than REMEMBERED_ROW (the header every injected block shares)
    is read once a segment; the answer is the same the first time and after."""
    boilerplate = np.uint64(2**63 + 12345)
    index = ShingleIndex()
    for number in range(REMEMBERED_ROW + 500):
        times = 3 if number == 77 else 1
        own = np.arange(number * 10, number * 10 + 6, dtype=np.uint64)
        index.add(number, np.concatenate([own, np.repeat(boilerplate, times)]))
    index.merge()
    query = np.array([boilerplate, 10 * 77, boilerplate], dtype=np.uint64)

    *_, left_out = index.lookup_distinctive(query, max_run=16)
    (segment,) = index.segments

    assert left_out.most_of_one().tolist() == [3, 3]
    assert list(segment._most.values()) == [3]
    assert left_out.most_of_one().tolist() == [3, 3]
