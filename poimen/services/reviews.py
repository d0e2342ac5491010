"""Reviewers' verdicts: they outrank the filter until someone changes them; an event each."""

from django.db import transaction

from poimen.models import Event, Record, Review
from poimen.services.common import InputError, status_in_force
from poimen.verdicts import verdict_misfit

REVIEW_EVENTS = {
    Review.Verdict.CONFIRMED: Event.Type.REVIEW_CONFIRMED,
    Review.Verdict.FALSE_POSITIVE: Event.Type.REVIEW_FALSE_POSITIVE,
    Review.Verdict.FALSE_NEGATIVE: Event.Type.REVIEW_FALSE_NEGATIVE,
}


def _review_snapshot(record: Record, old_status: str) -> dict:
    best = record.best_artifact
    return {
        "source": record.source,
        "external_id": record.external_id,
        "from": old_status,
        "to": record.status,
        "derived": record.derived,
        "best_overlap": record.best_overlap,
        "artifact": {"kind": best.kind, "name": best.name} if best else None,
    }


def _review_apply(record: Record, verdict, actor, note: str) -> Review:
    review = Review.objects.create(record=record, verdict=verdict, note=note, reviewer=actor)
    old_status = record.status
    record.review = review
    record.status = review.status_for(record)
    record.save(update_fields=["review", "status"])
    _review_event(record, old_status, verdict, actor, note).save()
    return review


def _review_event(record: Record, old_status: str, verdict, actor, note: str) -> Event:
    best = record.best_artifact
    return Event.objects.log(
        REVIEW_EVENTS[verdict],
        actor=actor,
        record=record,
        artifact=best,
        kind=best.kind if best else "",
        data={**_review_snapshot(record, old_status), "verdict": verdict.value, "note": note},
        save=False,
    )


def _verdict(value: str) -> Review.Verdict:
    try:
        return Review.Verdict(value)
    except ValueError:
        choices = ", ".join(Review.Verdict.values)
        raise InputError(f"verdict {value!r} is not one of {choices}") from None


def review_record(*, record: Record, verdict: str, actor, note: str = "") -> Review:
    """A reviewer's verdict: it outranks the filter until someone changes it; an event each."""
    verdict = _verdict(verdict)
    with transaction.atomic():
        record = (
            Record.objects.select_for_update(of=("self",))
            .select_related("best_artifact")
            .get(pk=record.pk)
        )
        misfit = verdict_misfit(record, verdict)  # the rule the desk's buttons ask too
        if misfit:
            raise InputError(misfit)
        return _review_apply(record, verdict, actor, note)


def reviews_bulk(*, records, verdict: str, actor, note: str = "") -> int:
    """The same verdict on every record of a queryset (one transaction); returns how many.
    A review and an event each, as one verdict would write them, written a thousand at a time.
    If the verdict does not fit one of them, none is judged."""
    verdict = _verdict(verdict)
    applied = 0
    with transaction.atomic():
        ids = list(records.order_by("pk").values_list("pk", flat=True))
        for start in range(0, len(ids), 1000):
            chunk = list(
                Record.objects.select_for_update(of=("self",))
                .select_related("best_artifact")
                .filter(pk__in=ids[start : start + 1000])
                .order_by("pk")
            )
            for record in chunk:
                misfit = verdict_misfit(record, verdict)
                if misfit:
                    raise InputError(f"record #{record.pk}: {misfit}; nothing was judged")
            reviews = Review.objects.bulk_create(
                [Review(record=r, verdict=verdict, note=note, reviewer=actor) for r in chunk]
            )
            events = []
            for record, review in zip(chunk, reviews, strict=True):
                old_status = record.status
                record.review = review
                record.status = review.status_for(record)
                events.append(_review_event(record, old_status, verdict, actor, note))
            Record.objects.bulk_update(chunk, ["review", "status"])
            Event.objects.bulk_create(events)
            applied += len(chunk)
    return applied


def review_undo(*, record: Record, actor, note: str = "") -> Record:
    """Withdraw the verdict in force: the verdict it replaced holds again, or the filter's
    decision if there was none (a new event; the withdrawn review is kept)."""
    with transaction.atomic():
        record = (
            Record.objects.select_for_update(of=("self",))
            .select_related("review", "best_artifact")
            .get(pk=record.pk)
        )
        if record.review_id is None:
            raise InputError("this record has no review to undo")
        undone = record.review
        old_status = record.status
        record.review = _review_replaced_by(undone)
        record.status = status_in_force(record)
        record.save(update_fields=["review", "status"])
        best = record.best_artifact
        Event.objects.log(
            Event.Type.REVIEW_UNDONE,
            actor=actor,
            record=record,
            artifact=best,
            kind=best.kind if best else "",
            data={
                **_review_snapshot(record, old_status),
                "undone": {"verdict": undone.verdict, "review": undone.pk},
                "restored": (
                    {"verdict": record.review.verdict, "review": record.review.pk}
                    if record.review
                    else None
                ),
                "note": note,
            },
        )
    return record


def _review_replaced_by(review: Review) -> Review | None:
    """The verdict that was in force when `review` was given: the latest earlier review of
    the record that has not been undone itself. A mis-keyed verdict undone loses nothing."""
    undone = Event.objects.filter(
        record_id=review.record_id, type=Event.Type.REVIEW_UNDONE
    ).values_list("data__undone__review", flat=True)
    return (
        Review.objects.filter(record_id=review.record_id, pk__lt=review.pk)
        .exclude(pk__in=[pk for pk in undone if pk is not None])
        .order_by("-pk")
        .first()
    )
