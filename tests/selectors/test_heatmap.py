"""The artifact heat map: parts of its text, how many records copy each, from the stored
matches' artifact-side ranges."""

import pytest

from poimen import selectors
from poimen.models import Match

TEXT = "\n".join(
    [
        "alpha beta gamma delta epsilon",  # words 0-4, part 1
        "",
        "zeta eta theta iota kappa",  # words 5-9, part 2
        "lambda mu nu xi omicron",  # words 10-14, part 3
    ]
)


@pytest.fixture
def artifact(make_artifact):
    return make_artifact(kind="skill", name="greek", text=TEXT)


def copy(make_record, artifact, ranges, overlap=0.5):
    record = make_record()
    return Match.objects.create(
        record=record,
        artifact=artifact,
        overlap=overlap,
        artifact_containment=overlap,
        record_containment=overlap,
        shared=30,
        threshold=0.8,
        artifact_ranges=ranges,
    )


def test_parts_count_the_records_whose_passages_hold_them(artifact, make_record):
    copy(make_record, artifact, [[0, 3]])  # part 1
    copy(make_record, artifact, [[3, 7]])  # parts 1 and 2
    copy(make_record, artifact, [[6, 7], [8, 9]])  # part 2 twice: one record
    copy(make_record, artifact, [])  # stored before ranges were kept
    heat = selectors.artifact_heatmap(artifact)
    assert [p.records for p in heat.parts] == [2, 2, 0]
    assert "".join(p.text for p in heat.parts) == TEXT  # the parts are the whole text
    assert heat.parts[0].text.startswith("alpha") and heat.parts[1].text.startswith("zeta")
    assert heat.without_ranges == 1 and heat.most == 2
    assert [p.level for p in heat.parts] == [5, 5, 0]


def test_a_part_lists_the_records_that_copy_it_closest_first(artifact, make_record):
    far = copy(make_record, artifact, [[0, 2]], overlap=0.3)
    near = copy(make_record, artifact, [[1, 12]], overlap=0.9)
    copies = selectors.part_copies(artifact, 1)
    assert copies.total == 2 and [m.pk for m in copies.matches] == [near.pk, far.pk]
    assert [m.pk for m in selectors.part_copies(artifact, 3).matches] == [near.pk]
    assert selectors.part_copies(artifact, 4) is None
    assert selectors.part_copies(artifact, 0) is None


def test_a_long_line_is_cut_into_parts(make_artifact, make_record):
    words = " ".join(f"w{i}" for i in range(100))
    artifact = make_artifact(kind="skill", name="long", text=words)
    copy(make_record, artifact, [[45, 50]])
    heat = selectors.artifact_heatmap(artifact)
    per_part = selectors.heatmap.PART_MAX_WORDS
    assert len(heat.parts) == -(-100 // per_part)
    assert [p.records for p in heat.parts] == [0, 1, 0]
    assert "".join(p.text for p in heat.parts) == words


def test_legend_steps_cover_one_to_the_most():
    steps = selectors.heatmap._legend(12)
    assert steps[0].low == 1 and steps[-1].high == 12
    assert all(b.low == a.high + 1 for a, b in zip(steps, steps[1:], strict=False))
    assert [s.low for s in selectors.heatmap._legend(2)] == [1, 2]


def test_ingest_keeps_the_artifact_side_of_each_passage(desk_data):
    match = desk_data["verbatim"].matches.get()
    words = match.artifact.n_tokens
    assert match.artifact_ranges and match.artifact_ranges[0][0] == 0
    assert match.artifact_ranges[-1][1] == words
    heat = selectors.artifact_heatmap(match.artifact)
    assert all(p.records >= 1 for p in heat.parts)


def test_text_less_artifact_has_no_map(artifact):
    artifact.text = ""
    assert selectors.artifact_heatmap(artifact) is None
