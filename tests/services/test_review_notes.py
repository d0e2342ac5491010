"""A verdict's note added or changed later (review_note), and the one rule of reason "other":
it needs a note, whichever way the verdict or the note comes in."""

import pytest

from poimen.models import Event, Review
from poimen.services import (
    NOTE_REQUIRED,
    InputError,
    NoteRequired,
    ReviewConflict,
    note_required,
    review_note,
    review_record,
)


def test_a_note_added_later_keeps_the_verdict_and_writes_an_event_with_the_note_before(
    desk_data, reviewer
):
    record = desk_data["verbatim"]
    review = review_record(record=record, verdict="confirmed", note="first", actor=reviewer)
    noted = review_note(record=record, note="  second thoughts  ", actor=reviewer)
    assert noted.pk == review.pk and noted.verdict == "confirmed"
    assert Review.objects.get(pk=review.pk).note == "second thoughts"
    event = Event.objects.get(type=Event.Type.REVIEW_NOTED)
    assert event.record_id == record.pk and event.actor == reviewer
    assert event.data["note"] == "second thoughts" and event.data["previous_note"] == "first"
    assert "note before: first" in event.describe()


def test_an_unchanged_note_writes_nothing(desk_data, reviewer):
    record = desk_data["verbatim"]
    review_record(record=record, verdict="confirmed", note="same", actor=reviewer)
    review_note(record=record, note="same ", actor=reviewer)
    assert not Event.objects.filter(type=Event.Type.REVIEW_NOTED).exists()


def test_a_record_without_a_verdict_has_no_note_to_change(desk_data, reviewer):
    with pytest.raises(InputError, match="no verdict to add a note to"):
        review_note(record=desk_data["verbatim"], note="x", actor=reviewer)
    assert not Event.objects.filter(type=Event.Type.REVIEW_NOTED).exists()


def test_a_note_on_a_verdict_given_since_is_refused(desk_data, reviewer):
    record = desk_data["verbatim"]
    seen = review_record(record=record, verdict="confirmed", actor=reviewer)
    review_record(record=record, verdict="false_positive", reason="quoted", actor=reviewer)
    with pytest.raises(ReviewConflict):
        review_note(
            record=record, note="about the confirmation", actor=reviewer, seen_review_id=seen.pk
        )
    assert Review.objects.get(pk=seen.pk).note == ""


def test_a_note_longer_than_the_limit_is_refused(desk_data, reviewer):
    record = desk_data["verbatim"]
    review_record(record=record, verdict="confirmed", actor=reviewer)
    with pytest.raises(InputError, match="at most 2,000 characters"):
        review_note(record=record, note="x" * 2001, actor=reviewer)


@pytest.mark.parametrize("note", ["", "   \n "])
def test_reason_other_without_a_note_is_refused_and_nothing_is_judged(desk_data, reviewer, note):
    record = desk_data["verbatim"]
    with pytest.raises(NoteRequired) as raised:
        review_record(
            record=record, verdict="false_positive", reason="other", note=note, actor=reviewer
        )
    assert str(raised.value) == NOTE_REQUIRED
    assert (
        not Review.objects.exists()
        and not Event.objects.filter(record=record)
        .exclude(type__in=[Event.Type.DERIVED_EXCLUDED, Event.Type.DERIVED_REDACTED])
        .exists()
    )


def test_reason_other_with_a_note_is_a_false_positive_with_both(desk_data, reviewer):
    record = desk_data["verbatim"]
    review = review_record(
        record=record,
        verdict="false_positive",
        reason="other",
        note="a changelog we publish",
        actor=reviewer,
    )
    assert review.reason == "other" and review.note == "a changelog we publish"


def test_the_note_of_reason_other_cannot_be_cleared_later(desk_data, reviewer):
    record = desk_data["verbatim"]
    review_record(
        record=record, verdict="false_positive", reason="other", note="why", actor=reviewer
    )
    with pytest.raises(NoteRequired):
        review_note(record=record, note=" ", actor=reviewer)
    assert Review.objects.get().note == "why"
    review_note(record=record, note="a better why", actor=reviewer)
    assert Review.objects.get().note == "a better why"


def test_the_other_reasons_need_no_note(desk_data, reviewer):
    assert note_required("other", "") and note_required("other", "  ")
    assert not note_required("other", "why")
    assert not any(note_required(reason, "") for reason in ("quoted", "reuse", "boilerplate", ""))
    record = desk_data["verbatim"]
    review_record(record=record, verdict="false_positive", reason="quoted", actor=reviewer)
    review_note(record=record, note="", actor=reviewer)
