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
