"""The segment store (filter/segment_store.py): segments shared as files, a process mapping
only what it lacks, merges in the background that change no lookup."""

import multiprocessing

import numpy as np
import pytest

from filter.index import ShingleIndex
from filter.segment_store import SegmentStore, StoreMismatch, StoreView


def _texts(n: int, seed: int = 3):
    rng = np.random.default_rng(seed)
    pool = rng.integers(0, 2**64 - 1, size=200, dtype=np.uint64, endpoint=True)
    texts = [
        np.concatenate([rng.choice(pool, 30), rng.integers(0, 2**63, 200, dtype=np.uint64)])
        for _ in range(n)
    ]
    return texts, pool


def _answers(index: ShingleIndex, probe) -> list:
    answers = list(index.lookup(probe))
    *anchors, left_out = index.lookup_distinctive(probe, max_run=3)
    return answers + [*anchors, *left_out.put_back(anchors)]


def _same(mine, theirs) -> None:
    assert all(np.array_equal(a, b) for a, b in zip(mine, theirs, strict=True))


def test_a_view_maps_only_the_segments_it_lacks_and_merges_change_no_lookup(tmp_path):
    texts, pool = _texts(30)
    store = SegmentStore(tmp_path)
    view = StoreView(store)
    whole = ShingleIndex()
    for number, shingles in enumerate(texts):
        whole.add(number, shingles)
    probe = np.concatenate([texts[0][:40], texts[29][:40], pool])
    for first in range(0, 30, 3):
        store.append([(n, texts[n]) for n in range(first, first + 3)])
        before = view.opened
        manifest, segments = view.current()
        assert view.opened == before + 1  # the new segment alone
        assert manifest.end == first + 3
    assert view.current()[1] == view.current()[1]  # nothing changed: nothing read
    _same(_answers(ShingleIndex(view.current()[1]), probe), _answers(whole, probe))
    while store.compact():
        pass
    manifest, segments = view.current()
    assert len(segments) < 10
    store._delete_unnamed(manifest, grace=0.0)
    assert sorted(p.name for p in tmp_path.glob("*.seg")) == sorted(manifest.segments)
    _same(_answers(ShingleIndex(segments), probe), _answers(whole, probe))


def test_an_append_must_follow_the_store_and_a_tombstone_hides_an_artifact(tmp_path):
    texts, pool = _texts(6)
    store = SegmentStore(tmp_path)
    store.append([(0, texts[0]), (1, texts[1])])
    with pytest.raises(StoreMismatch):
        store.append([(5, texts[5])])
    store.append([(2, texts[2])])
    manifest = store.remove(1)
    segments = StoreView(store).current()[1]
    found = ShingleIndex(segments).using(segments, removed=manifest.removed).lookup(texts[1])
    assert 1 not in found[1].tolist()
    # a view a process opened earlier is still read after a merge deletes the files
    assert store.compact() and len(StoreView(store).current()[1]) == 1
    assert len(ShingleIndex(segments).lookup(texts[0])[0])


def _found_in_another_process(path, shingles, answer):
    answer.put(len(ShingleIndex(StoreView(SegmentStore(path)).current()[1]).lookup(shingles)[0]))


def test_another_process_finds_what_one_appended(tmp_path):
    texts, _ = _texts(2)
    store = SegmentStore(tmp_path)
    store.append([(0, texts[0])])
    answer = multiprocessing.get_context("fork").Queue()
    child = multiprocessing.get_context("fork").Process(
        target=_found_in_another_process, args=(tmp_path, texts[0], answer)
    )
    child.start()
    child.join(30)
    alone = ShingleIndex()
    alone.add(0, texts[0])
    assert answer.get(timeout=5) == len(alone.lookup(texts[0])[0])
