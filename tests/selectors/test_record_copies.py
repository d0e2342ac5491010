"""Every artifact a record decided across kinds copies, with where its passages lie."""

from poimen.selectors import record_copies, record_matches


def test_each_artifact_of_a_record_pasted_from_two_kinds_has_its_own_passages(
    pasted_across_kinds,
):
    record = pasted_across_kinds
    assert record.mixed_coverage and record.status == "excluded"
    copies = record_copies(record, record_matches(record))
    assert {c.match.artifact.kind for c in copies} == {"skill", "reference"}
    for copy in copies:
        assert copy.passages >= 1 and copy.bars
        assert 0.2 < copy.share < 0.8
    skill, reference = sorted(copies, key=lambda c: c.match.artifact.kind != "skill")
    # The skill was pasted first, the reference page after it.
    assert skill.bars[0][0] < reference.bars[0][0]
    assert all(0 <= x and x + width <= 1000.1 for c in copies for x, width in c.bars)
