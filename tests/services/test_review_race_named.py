"""The loser of a verdict race is told who decided and when, a withdrawal included."""

import pytest

from poimen.services import ReviewConflict, review_record, review_undo


def test_a_verdict_on_one_withdrawn_meanwhile_names_who_withdrew_it(desk_data, reviewer):
    record = desk_data["verbatim"]
    seen = review_record(record=record, verdict="confirmed", actor=reviewer)
    review_undo(record=record, actor=reviewer)
    with pytest.raises(ReviewConflict) as lost:
        review_record(
            record=record,
            verdict="false_positive",
            reason="quoted",
            actor=reviewer,
            seen_review_id=seen.pk,
        )
    said = str(lost.value)
    assert f"{reviewer.get_username()} withdrew the verdict you saw at " in said
    assert "someone" not in said


def test_a_verdict_given_meanwhile_names_its_reviewer_and_time(desk_data, reviewer):
    record = desk_data["verbatim"]
    given = review_record(record=record, verdict="confirmed", actor=reviewer)
    with pytest.raises(ReviewConflict) as lost:
        review_record(record=record, verdict="confirmed", actor=reviewer, seen_review_id=None)
    said = str(lost.value)
    assert f"{reviewer.get_username()} judged it confirmed" in said
    assert f"at {given.created_at:%H:%M:%S}" in said
