"""The team's reads (poimen/selectors/team.py): agreement per pair and per reviewer, the
disagreement queue, who holds what."""

import pytest

from poimen.models import SecondReview
from poimen.selectors import agreement, claim_holders, claims_shown, disagreements
from poimen.services import records_claim, review_record, second_review_give


@pytest.fixture
def two_verdicts(settings, borderline):
    """two_verdicts([(first_user, first, second_user, second), ...]) -> their SecondReviews."""
    settings.POIMEN_SECOND_REVIEW_SHARE = 1.0

    def make(rows):
        records = borderline(len(rows))
        made = []
        for record, (first_user, first, second_user, second) in zip(records, rows, strict=True):
            review_record(record=record, verdict=first, actor=first_user)
            routed = SecondReview.objects.get(record=record)
            made.append(second_review_give(second=routed, verdict=second, actor=second_user))
        return made

    return make


def test_agreement_per_pair_and_per_reviewer(two_verdicts, reviewer, make_reviewer):
    sam, ann = make_reviewer("sam"), make_reviewer("ann")
    c, f = "confirmed", "false_positive"
    two_verdicts(
        [
            # rita & sam: agree on 2 of 4, each says copy half the time: kappa 0.
            (reviewer, c, sam, c), (reviewer, f, sam, f), (sam, c, reviewer, f),
            (reviewer, c, sam, f),
            # ann & rita: agree on both, with variance: kappa 1.
            (ann, c, reviewer, c), (reviewer, f, ann, f),
        ]
    )  # fmt: skip
    result = agreement()
    pairs = {row.names: row for row in result["pairs"]}
    assert set(pairs) == {("rita", "sam"), ("ann", "rita")}
    assert pairs[("rita", "sam")].records == 4 and pairs[("rita", "sam")].agreed == 2
    assert pairs[("rita", "sam")].kappa == pytest.approx(0.0)
    assert pairs[("ann", "rita")].kappa == pytest.approx(1.0)
    reviewers = {row.names[0]: row for row in result["reviewers"]}
    # rita against the others, (hers, theirs): (c,c) (f,f) (f,c) (c,f) (c,c) (f,f): agreed 4
    # of 6; each side says copy 3 times: p_e 0.5, kappa (2/3 - 1/2) / (1/2) = 1/3.
    assert reviewers["rita"].records == 6 and reviewers["rita"].agreed == 4
    assert reviewers["rita"].kappa == pytest.approx(1 / 3)
    assert reviewers["ann"].records == 2 and reviewers["sam"].records == 4


def test_one_answer_throughout_has_no_kappa(two_verdicts, reviewer, make_reviewer):
    sam = make_reviewer("sam")
    two_verdicts([(reviewer, "confirmed", sam, "confirmed")] * 3)
    (pair,) = agreement()["pairs"]
    assert pair.agreed == 3 and pair.kappa is None


def test_the_queue_holds_the_unsettled_disagreements_only(two_verdicts, reviewer, make_reviewer):
    sam = make_reviewer("sam")
    agreed, disagreed, also = two_verdicts(
        [
            (reviewer, "confirmed", sam, "confirmed"),
            (reviewer, "confirmed", sam, "false_positive"),
            (reviewer, "false_positive", sam, "confirmed"),
        ]
    )
    assert [s.pk for s in disagreements()] == [also.pk, disagreed.pk]
    from poimen.services import disagreement_settle

    disagreement_settle(second=also, verdict="confirmed", actor=reviewer)
    assert [s.pk for s in disagreements()] == [disagreed.pk]
    assert [s.pk for s in disagreements(settled=True)] == [also.pk]


def test_claims_are_shown_on_rows_and_per_holder(borderline, reviewer, make_reviewer):
    from poimen.selectors import ListFilters, exclusion_list

    sam = make_reviewer("sam")
    records = borderline(3)
    listed = exclusion_list(filters=ListFilters(sort="closeness"))
    records_claim(records=listed, actor=sam, size=2)
    review_record(record=records[0], verdict="confirmed", actor=sam)
    rows = list(listed.filter(pk__in=[r.pk for r in records]))
    mine = claims_shown(rows, reviewer)
    assert [r.claimed_by for r in rows] == ["sam", "sam", ""]
    assert mine.count == 0 and mine.until is None
    (holder,) = claim_holders()
    assert holder.username == "sam" and holder.count == 2 and holder.unreviewed == 1
