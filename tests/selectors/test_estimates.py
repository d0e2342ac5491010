"""Precision and recall from the verdicts, on a hand-built set whose answers are known, and the
judged records a threshold would flip, against what saving it then does."""

import pytest

from poimen import selectors, services
from poimen.models import Match, Record, Review

CONFIRMED = Review.Verdict.CONFIRMED
FALSE_POSITIVE = Review.Verdict.FALSE_POSITIVE
FALSE_NEGATIVE = Review.Verdict.FALSE_NEGATIVE


@pytest.fixture
def judged_set(make_artifact, make_record, reviewer):
    """Skill records at threshold 0.8, each with one stored match (shared 40):

    derived now: a 0.90 (confirmed), b 0.90 (false positive), two more 0.90 unjudged;
                 c 0.97 (confirmed), one more 0.97 unjudged; e 0.86 unjudged (a band alone)
    near misses: d 0.70 (false negative), two more 0.70 unjudged; one 0.50 unjudged
    """
    artifact = make_artifact(kind="skill", name="release-notes")
    made = {}

    def record(name, overlap, verdict=None):
        derived = overlap > 0.8
        rec = make_record(
            external_id=name,
            derived=derived,
            status=Record.Status.EXCLUDED if derived else Record.Status.EVIDENCE,
            best_overlap=overlap,
            best_artifact=artifact,
        )
        Match.objects.create(
            record=rec,
            artifact=artifact,
            overlap=overlap,
            artifact_containment=overlap,
            record_containment=overlap,
            shared=40,
            threshold=0.8,
        )
        if verdict:
            services.review_record(record=rec, verdict=verdict, actor=reviewer)
        made[name] = rec

    record("a", 0.90, CONFIRMED)
    record("b", 0.90, FALSE_POSITIVE)
    record("a2", 0.90)
    record("a3", 0.90)
    record("c", 0.97, CONFIRMED)
    record("c2", 0.97)
    record("e", 0.86)
    record("d", 0.70, FALSE_NEGATIVE)
    record("d2", 0.70)
    record("d3", 0.70)
    record("f", 0.50)
    return made


def at(estimates, threshold):
    return next(row for row in estimates.rows if row.threshold == threshold)


def test_judged_exclusions_stand_for_their_band_and_missed_copies_count_once(judged_set):
    estimates = selectors.threshold_estimates("skill", also=(0.8,))
    assert estimates.judged == 4
    assert estimates.not_estimated == 1  # e: derived, in a band no reviewer reached
    now = at(estimates, 0.8)
    # a and b stand for the four at 0.90 (weight 2 each), c for the two at 0.97 (weight 2)
    assert now.precision.value == pytest.approx(4 / 6)
    assert now.precision.reviews == 3
    # copies: a, c (weight 2 each) derived; d (a near miss, weight 1) missed
    assert now.recall.value == pytest.approx(4 / 5)
    assert now.recall.reviews == 3
    assert now.unjudged == 0


def test_lower_threshold_counts_the_marked_copy_and_names_the_unjudged(judged_set):
    lower = at(selectors.threshold_estimates("skill"), 0.65)
    assert lower.precision.value == pytest.approx(5 / 7)
    assert lower.recall.value == pytest.approx(1.0)
    assert lower.unjudged == 2  # d2 and d3: near misses it would exclude, no verdict


def test_higher_threshold_loses_the_copies_at_090(judged_set):
    higher = at(selectors.threshold_estimates("skill"), 0.95)
    assert (higher.precision.value, higher.precision.reviews) == (pytest.approx(1.0), 1)
    assert higher.recall.value == pytest.approx(2 / 5)


def test_intervals_hold_the_estimate_and_narrow_with_more_verdicts():
    low, high = selectors.estimates.wilson(0.8, 5)
    assert low < 0.8 < high
    wide = high - low
    low, high = selectors.estimates.wilson(0.8, 500)
    assert low < 0.8 < high and high - low < wide / 5


def test_no_verdicts_no_estimate(make_artifact, make_record):
    make_artifact(kind="skill", name="release-notes")
    estimates = selectors.threshold_estimates("skill", also=(0.8,))
    assert estimates.judged == 0
    assert at(estimates, 0.8).precision.value is None


def test_an_undone_verdict_no_longer_counts(judged_set, reviewer):
    services.review_undo(record=Record.objects.get(pk=judged_set["b"].pk), actor=reviewer)
    now = at(selectors.threshold_estimates("skill", also=(0.8,)), 0.8)
    assert now.precision.value == pytest.approx(1.0)


def _flip_sets(flips):
    return (
        {f.record_id for f in flips.against},
        {f.record_id for f in flips.in_line},
    )


@pytest.mark.parametrize("value", [0.65, 0.95, 0.85])
def test_flips_are_what_saving_the_threshold_does_against_the_verdicts(judged_set, value, tuner):
    flips = selectors.threshold_flips("skill", value)
    judged = Record.objects.filter(review__isnull=False).select_related("review")
    before = {r.pk: r.derived for r in judged}
    services.threshold_change(kind="skill", value=value, reason="test", actor=tuner)
    against, in_line = set(), set()
    for record in Record.objects.filter(pk__in=before).select_related("review"):
        if record.derived == before[record.pk]:
            continue
        copy = record.review.verdict in (CONFIRMED, FALSE_NEGATIVE)
        (in_line if record.derived == copy else against).add(record.pk)
    assert _flip_sets(flips) == (against, in_line)
    assert (flips.against_total, flips.in_line_total) == (len(against), len(in_line))


def test_flips_name_the_records(judged_set):
    lower = selectors.threshold_flips("skill", 0.65)
    assert _flip_sets(lower) == (set(), {judged_set["d"].pk})
    higher = selectors.threshold_flips("skill", 0.95)
    assert _flip_sets(higher) == ({judged_set["a"].pk}, {judged_set["b"].pk})
    assert higher.against[0].verdict == CONFIRMED and higher.against[0].derived_now


def test_a_value_on_fewer_than_ten_verdicts_says_it_is_too_few():
    from poimen.selectors.estimates import TOO_FEW, Estimate

    assert Estimate(value=0.5, low=0.1, high=0.9, reviews=TOO_FEW - 1).too_few
    assert not Estimate(value=0.5, low=0.4, high=0.6, reviews=TOO_FEW).too_few
    assert not Estimate(value=None, low=None, high=None, reviews=0).too_few  # "—" says it
