"""The team's rules (poimen/team/team_rules.py): the borderline band, the second-review share,
copy-or-not judgements and their SQL form, the record as the filter left it."""

import pytest

from poimen.models import Record, Review, SecondReview
from poimen.team import team_rules

VERDICTS = Review.Verdict.values


def test_borderline_is_the_band_either_side_of_the_threshold(settings):
    settings.POIMEN_SECOND_REVIEW_BAND = 0.05
    assert team_rules.is_borderline(0.84, 0.8) and team_rules.is_borderline(0.76, 0.8)
    assert team_rules.is_borderline(0.8, 0.8)
    assert not team_rules.is_borderline(0.86, 0.8) and not team_rules.is_borderline(0.74, 0.8)


@pytest.mark.parametrize("share", [0.0, 0.2, 0.5, 1.0])
def test_the_share_sent_to_a_second_reviewer_holds_over_many_records(settings, share):
    settings.POIMEN_SECOND_REVIEW_SHARE = share
    sent = sum(team_rules.in_second_review_share(pk) for pk in range(1, 20_001))
    assert sent / 20_000 == pytest.approx(share, abs=0.01)
    # The same record always gets the same answer.
    assert [team_rules.in_second_review_share(pk) for pk in range(50)] == [
        team_rules.in_second_review_share(pk) for pk in range(50)
    ]


def test_a_confirmation_and_a_false_negative_both_say_copy():
    assert not team_rules.disagree("confirmed", "false_negative")
    assert team_rules.disagree("confirmed", "false_positive")
    assert team_rules.disagree("false_positive", "false_negative")
    assert not team_rules.disagree("false_positive", "false_positive")


@pytest.mark.django_db
def test_the_sql_form_of_a_disagreement_agrees_with_the_python_one(
    make_record, reviewer, make_reviewer
):
    other = make_reviewer("sam")
    for first in VERDICTS:
        for second in VERDICTS:
            record = make_record(text=f"{first} then {second}")
            review = Review.objects.create(record=record, verdict=first, reviewer=reviewer)
            SecondReview.objects.create(
                record=record,
                first_review=review,
                verdict=second,
                reviewer=other,
                judged_at=review.created_at,
            )
    condition = team_rules.disagreement_condition("first_review__verdict", "verdict")
    in_sql = set(
        SecondReview.objects.filter(condition).values_list("first_review__verdict", "verdict")
    )
    in_python = {(a, b) for a in VERDICTS for b in VERDICTS if team_rules.disagree(a, b)}
    assert in_sql == in_python and len(in_python) == 4


@pytest.mark.django_db
def test_the_record_as_the_filter_left_it_hides_the_verdict_and_keeps_the_original(
    desk_data, reviewer
):
    from poimen.services import review_record

    record = desk_data["verbatim"]
    review_record(record=record, verdict="false_positive", actor=reviewer)
    record = Record.objects.select_related("review", "best_artifact").get(pk=record.pk)
    blind = team_rules.as_the_filter_left_it(record)
    assert blind.status == "excluded" and blind.review is None and blind.review_id is None
    assert blind.best_artifact == record.best_artifact and blind.text == record.text
    assert record.status == "evidence" and record.review.verdict == "false_positive"
