"""Second reviews: a share of borderline records goes, after a first verdict, to a second and
different reviewer who judges blind; where the two disagree, someone settles it. An event each.

The second verdict is kept beside the first and changes nothing on its own: the first verdict
stays in force until a settlement says otherwise (then the settled verdict is given through
review_record, as any verdict is)."""

from django.db import transaction
from django.utils import timezone

from poimen.decision.policies import Policies
from poimen.models import Event, Record, Review, SecondReview
from poimen.services.common import InputError
from poimen.team import team_rules
from poimen.team.verdicts import verdict_misfit


def event_about(record: Record) -> dict:
    best = record.best_artifact
    return {"record": record, "artifact": best, "kind": best.kind if best else ""}


def second_review_route(*, review: Review, record: Record) -> SecondReview | None:
    """After `review` (a single verdict on `record`), send the record to a second reviewer if
    it is borderline and in the share; once per record. Called inside the verdict's
    transaction, so a verdict and its routing are written together."""
    if record.best_artifact is None or review.bulk_id is not None:
        return None
    threshold = Policies.load().threshold_for(record.best_artifact.kind)
    if not team_rules.is_borderline(record.best_overlap, threshold):
        return None
    if not team_rules.in_second_review_share(record.pk):
        return None
    if SecondReview.objects.filter(record=record).exists():
        return None
    second = SecondReview.objects.create(record=record, first_review=review)
    Event.objects.log(
        Event.Type.SECOND_REVIEW_ROUTED,
        actor=review.reviewer,
        data={"best_overlap": record.best_overlap, "threshold": threshold},
        **event_about(record),
    )
    return second


class SecondReviewTaken(InputError):
    """Someone else gave the second verdict first (theirs is not shown: the review is blind)."""


def verdict_of(value: str) -> Review.Verdict:
    try:
        return Review.Verdict(value)
    except ValueError:
        raise InputError(
            f"verdict {value!r} is not one of {', '.join(Review.Verdict.values)}"
        ) from None


def second_review_give(*, second: SecondReview, verdict: str, actor) -> SecondReview:
    """The second, blind verdict on a record: by anyone who did not give the first; once."""
    verdict = verdict_of(verdict)
    with transaction.atomic():
        second = (
            SecondReview.objects.select_for_update(of=("self",))
            .select_related("first_review", "record", "record__best_artifact", "reviewer")
            .get(pk=second.pk)
        )
        if second.judged_at is not None:
            raise SecondReviewTaken(
                f"record #{second.record_id}: another reviewer gave the second verdict first; "
                "on to the next."
            )
        if second.first_review.reviewer_id == actor.pk:
            raise InputError(
                f"record #{second.record_id}: you gave the first verdict; a second reviewer "
                "must be someone else"
            )
        if second.first_review.withdrawn_at is not None:
            raise InputError(
                f"record #{second.record_id}: the first verdict was undone, so there is "
                "nothing to compare a second one with"
            )
        misfit = verdict_misfit(team_rules.as_the_filter_left_it(second.record), verdict)
        if misfit:
            raise InputError(f"record #{second.record_id}: {misfit}")
        second.verdict = verdict
        second.reviewer = actor
        second.judged_at = timezone.now()
        second.save(update_fields=["verdict", "reviewer", "judged_at"])
        first = second.first_review.verdict
        Event.objects.log(
            Event.Type.SECOND_REVIEW_GIVEN,
            actor=actor,
            data={
                "first": first,
                "second": verdict.value,
                "verdict": "disagree" if team_rules.disagree(first, verdict) else "agree",
            },
            **event_about(second.record),
        )
    return second
