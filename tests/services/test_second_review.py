"""Second reviews (poimen/services/second_review.py): a share of borderline records goes to
a second, different reviewer after the first verdict; both verdicts are kept; a disagreement
is settled once, with an event."""

import pytest

from poimen.models import Event, Record, Review, SecondReview
from poimen.services import (
    InputError,
    SecondReviewTaken,
    disagreement_settle,
    review_record,
    review_undo,
    reviews_bulk,
    second_review_give,
)


@pytest.fixture
def everything_borderline_is_sent(settings):
    settings.POIMEN_SECOND_REVIEW_SHARE = 1.0
    settings.POIMEN_SECOND_REVIEW_BAND = 0.05


@pytest.fixture
def sam(make_reviewer):
    return make_reviewer("sam")


@pytest.fixture
def routed(everything_borderline_is_sent, borderline, reviewer):
    """A borderline record rita confirmed: it waits for a second verdict."""
    record = borderline(1)[0]
    review_record(record=record, verdict="confirmed", actor=reviewer)
    return SecondReview.objects.get(record=record)


def test_a_borderline_verdict_sends_the_record_to_a_second_reviewer(routed, reviewer):
    assert routed.first_review.verdict == "confirmed" and routed.first_review.reviewer == reviewer
    assert routed.verdict == "" and routed.judged_at is None
    event = Event.objects.get(type="second_review_routed")
    assert event.record_id == routed.record_id and event.data["threshold"] == 0.8


def test_a_record_far_from_its_threshold_is_not_sent(
    everything_borderline_is_sent, desk_data, reviewer, borderline
):
    far = borderline(1, overlap=0.95)[0]
    review_record(record=far, verdict="confirmed", actor=reviewer)
    review_record(record=desk_data["verbatim"], verdict="confirmed", actor=reviewer)
    assert not SecondReview.objects.exists()


def test_no_share_sends_nothing(settings, borderline, reviewer):
    settings.POIMEN_SECOND_REVIEW_SHARE = 0.0
    record = borderline(1)[0]
    review_record(record=record, verdict="confirmed", actor=reviewer)
    assert not SecondReview.objects.exists()


def test_a_record_is_sent_once_and_a_bulk_verdict_sends_none(
    everything_borderline_is_sent, borderline, reviewer
):
    record, other = borderline(2)
    review_record(record=record, verdict="confirmed", actor=reviewer)
    review_record(record=record, verdict="false_positive", actor=reviewer)
    assert SecondReview.objects.filter(record=record).count() == 1
    reviews_bulk(
        records=Record.objects.filter(pk=other.pk), verdict="confirmed", actor=reviewer,
        filters_described="test",
    )  # fmt: skip
    assert not SecondReview.objects.filter(record=other).exists()


def test_the_second_verdict_is_kept_beside_the_first_and_changes_nothing(routed, sam):
    second = second_review_give(second=routed, verdict="false_positive", actor=sam)
    assert second.verdict == "false_positive" and second.reviewer == sam and second.judged_at
    record = Record.objects.select_related("review").get(pk=routed.record_id)
    assert record.review.verdict == "confirmed" and record.status == "excluded"
    event = Event.objects.get(type="second_review_given")
    assert event.actor == sam and event.data["first"] == "confirmed"
    assert event.data["second"] == "false_positive" and event.data["verdict"] == "disagree"


def test_the_first_reviewer_cannot_be_the_second(routed, reviewer):
    with pytest.raises(InputError, match="must be someone else"):
        second_review_give(second=routed, verdict="confirmed", actor=reviewer)
    assert not Event.objects.filter(type="second_review_given").exists()


def test_the_later_of_two_second_verdicts_is_refused(routed, sam, make_reviewer):
    second_review_give(second=routed, verdict="confirmed", actor=sam)
    with pytest.raises(SecondReviewTaken, match="another reviewer gave the second verdict"):
        second_review_give(second=routed, verdict="false_positive", actor=make_reviewer("ann"))
    assert SecondReview.objects.get(pk=routed.pk).verdict == "confirmed"


def test_a_second_verdict_must_fit_the_record_as_the_filter_left_it(routed, sam):
    with pytest.raises(InputError, match="false negative"):
        second_review_give(second=routed, verdict="false_negative", actor=sam)
    with pytest.raises(InputError, match="not one of"):
        second_review_give(second=routed, verdict="maybe", actor=sam)


def test_a_released_record_is_judged_as_the_filter_left_it(
    everything_borderline_is_sent, borderline, reviewer, sam
):
    record = borderline(1)[0]
    review_record(record=record, verdict="false_positive", actor=reviewer)  # now evidence
    second = SecondReview.objects.get(record=record)
    # Blind: the status in force (evidence) is not what the verdict is checked against.
    second_review_give(second=second, verdict="confirmed", actor=sam)
    second.refresh_from_db()
    assert (second.verdict, second.reviewer) == ("confirmed", sam)


def test_an_undone_first_verdict_leaves_nothing_to_compare(routed, reviewer, sam):
    review_undo(record=routed.record, actor=reviewer)
    with pytest.raises(InputError, match="first verdict was undone"):
        second_review_give(second=routed, verdict="confirmed", actor=sam)


def test_settling_a_disagreement_applies_the_verdict_and_logs_all_three(routed, sam, tuner):
    second_review_give(second=routed, verdict="false_positive", actor=sam)
    review = disagreement_settle(
        second=routed, verdict="false_positive", actor=tuner, note="quoted"
    )
    record = Record.objects.select_related("review").get(pk=routed.record_id)
    assert record.review == review and review.verdict == "false_positive"
    assert record.status == "evidence" and review.reviewer == tuner
    settled = SecondReview.objects.get(pk=routed.pk)
    assert settled.settled_verdict == "false_positive" and settled.settled_by == tuner
    event = Event.objects.get(type="disagreement_settled")
    assert event.data == {
        "first": "confirmed", "second": "false_positive", "settled": "false_positive",
        "note": "quoted",
    }  # fmt: skip
    assert event.actor == tuner and event.record_id == routed.record_id


def test_settling_with_the_verdict_in_force_gives_no_new_verdict(routed, sam, tuner):
    second_review_give(second=routed, verdict="false_positive", actor=sam)
    before = Review.objects.count()
    review = disagreement_settle(second=routed, verdict="confirmed", actor=tuner)
    assert Review.objects.count() == before and review == routed.first_review
    assert Event.objects.filter(type="disagreement_settled").count() == 1


def test_a_disagreement_is_settled_once(routed, sam, tuner, reviewer):
    second_review_give(second=routed, verdict="false_positive", actor=sam)
    disagreement_settle(second=routed, verdict="confirmed", actor=tuner)
    with pytest.raises(InputError, match="tom settled it already"):
        disagreement_settle(second=routed, verdict="false_positive", actor=reviewer)
    assert Event.objects.filter(type="disagreement_settled").count() == 1


def test_an_agreement_or_a_pending_review_is_not_settled(routed, sam, tuner):
    with pytest.raises(InputError, match="no disagreement"):
        disagreement_settle(second=routed, verdict="confirmed", actor=tuner)
    second_review_give(second=routed, verdict="confirmed", actor=sam)
    with pytest.raises(InputError, match="no disagreement"):
        disagreement_settle(second=routed, verdict="false_positive", actor=tuner)
