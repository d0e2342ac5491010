"""Settling a disagreement between a first and a second reviewer: the settled verdict is given
through review_record, as any verdict is, so this sits above both reviews and second_review."""

from django.db import transaction
from django.utils import timezone

from poimen.models import Event, Record, Review, SecondReview
from poimen.services.common import InputError
from poimen.services.reviews import review_record
from poimen.services.second_review import event_about, verdict_of
from poimen.team import team_rules


def disagreement_settle(*, second: SecondReview, verdict: str, actor, note: str = "") -> Review:
    """Settle a disagreement with `verdict` (one of the two, or a third): the verdict in force
    becomes it (through review_record, unless it already holds), and a `disagreement_settled`
    event records both verdicts and the settlement. Once per disagreement."""
    verdict = verdict_of(verdict)
    with transaction.atomic():
        second = (
            SecondReview.objects.select_for_update(of=("self",))
            .select_related("first_review", "record", "settled_by")
            .get(pk=second.pk)
        )
        if second.judged_at is None or not team_rules.disagree(
            second.first_review.verdict, second.verdict
        ):
            raise InputError(f"record #{second.record_id}: there is no disagreement to settle")
        if second.settled_at is not None:
            who = second.settled_by.get_username() if second.settled_by else "someone"
            raise InputError(
                f"record #{second.record_id}: {who} settled it already as "
                f"{second.get_settled_verdict_display()}"
            )
        record = Record.objects.select_related("review", "best_artifact").get(pk=second.record_id)
        in_force = record.review
        if in_force is None or in_force.verdict != verdict:
            in_force = review_record(record=record, verdict=verdict, actor=actor, note=note)
        second.settled_verdict = verdict
        second.settled_by = actor
        second.settled_at = timezone.now()
        second.save(update_fields=["settled_verdict", "settled_by", "settled_at"])
        Event.objects.log(
            Event.Type.DISAGREEMENT_SETTLED,
            actor=actor,
            data={
                "first": second.first_review.verdict,
                "second": second.verdict,
                "settled": verdict.value,
                "note": note,
            },
            **event_about(record),
        )
    return in_force
