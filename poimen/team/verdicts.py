"""Which verdicts fit a record: the one rule the review service enforces (review_record and
reviews_bulk) and the desk's buttons ask (templates through the `verdicts` tag library).

A verdict answers one question about the filter's decision on a record:
- confirmed, "the exclusion (or the redaction) is right": it judges a record the filter decided
  derived, or one that is excluded (by a reviewer's false negative). A confirmed redaction
  stays redacted.
- false positive, "not a copy, evidence": it fits any record, a release the filter must
  respect whatever it decides later (a refilter with new artifacts, a threshold change); a
  released redaction returns to evidence whole.
- false negative, "a copy the filter missed": it judges a record with a match that the filter
  did not decide derived.

A record's best artifact is its top stored match, so it has one exactly when it has a match.
"""

from django.db.models import Q

from poimen.models import Record, Review

Verdict = Review.Verdict


def verdict_misfit(record: Record, verdict: Verdict) -> str:
    """Why `verdict` does not fit `record`; empty when it fits."""
    if verdict == Verdict.FALSE_NEGATIVE:
        if record.best_artifact_id is None:
            return (
                "a false negative is a near miss that should be excluded: this record matches "
                "no artifact"
            )
        if record.derived:
            return (
                "a false negative is a copy the filter missed: the filter decided this record "
                "derived (confirm the exclusion instead)"
            )
    if verdict == Verdict.CONFIRMED and not (
        record.derived or record.status == Record.Status.EXCLUDED
    ):
        return "a confirmation judges an exclusion: this record was never excluded"
    return ""


def verdicts_fitting(record: Record) -> list[Verdict]:
    """Every verdict `record` may take, in the order of Review.Verdict."""
    return [verdict for verdict in Verdict if not verdict_misfit(record, verdict)]


def verdicts_offered(record: Record) -> list[Verdict]:
    """The verdicts the desk offers on `record`: those that fit and answer the status in
    force. An excluded or redacted record is confirmed or released; evidence may be excluded
    (a missed copy, or a release taken back). A release of evidence is the service's alone."""
    fitting = verdicts_fitting(record)
    if record.status in (Record.Status.EXCLUDED, Record.Status.REDACTED):
        return [v for v in (Verdict.CONFIRMED, Verdict.FALSE_POSITIVE) if v in fitting]
    return [v for v in fitting if v != Verdict.FALSE_POSITIVE]


def _reviewer_name(review: Review) -> str:
    return review.reviewer.get_username() if review.reviewer_id else "a former reviewer"


def undo_refusal(review: Review | None, user) -> str:
    """Why `user` may not undo `review`, the verdict in force on its record; empty when they
    may. One undoes one's own verdicts only, as many levels back as there are: a colleague's
    verdict is never withdrawn silently, it is changed by giving a new verdict, which the
    audit log records as overriding theirs (reviews.review_record)."""
    if review is None:
        return "this record has no review to undo"
    if review.reviewer_id is None or review.reviewer_id != user.pk:
        return (
            f"record #{review.record_id}: the verdict in force is {_reviewer_name(review)}'s "
            f"({review.get_verdict_display()}); you can undo only your own verdicts. To change "
            "it, give a new verdict: it is recorded as overriding theirs."
        )
    return ""


def undoable_by(review: Review | None, user) -> bool:
    """Whether the desk offers `user` an undo of `review` (the rule of undo_refusal)."""
    return review is not None and not undo_refusal(review, user)


def overridden(review: Review | None, user) -> dict | None:
    """What a new verdict by `user` overrides, for its event: a colleague's verdict in force
    (who gave it, when, what it was), or None when there is none or it is `user`'s own."""
    if review is None or (review.reviewer_id is not None and review.reviewer_id == user.pk):
        return None
    return {
        "review": review.pk,
        "verdict": review.verdict,
        "reviewer": _reviewer_name(review),
        "at": review.created_at.isoformat(timespec="seconds"),
    }


def overridden_condition(user) -> Q:
    """The SQL form of `overridden`, on Record: a colleague's verdict (or a former
    reviewer's) is in force on the record, so a new verdict by `user` would override it."""
    return Q(review__isnull=False) & (Q(review__reviewer__isnull=True) | ~Q(review__reviewer=user))
