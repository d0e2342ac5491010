"""The shingle index (filter/index.py): which artifact positions a record's shingle finds."""

from filter import ArtifactRecord
from filter.index import MAX_REPEATS, ShingleIndex


def test_a_shingle_repeated_in_one_artifact_is_indexed_at_its_first_positions_only():
    repetitive = ArtifactRecord.from_text(kind="skill", name="r", text="test " * 200 + "done")
    index = ShingleIndex()
    index.add(0, repetitive.shingles)

    record_pos, _, artifact_pos = index.lookup(repetitive.shingles[:1])

    assert len(record_pos) == MAX_REPEATS
    assert sorted(artifact_pos.tolist()) == list(range(MAX_REPEATS))
