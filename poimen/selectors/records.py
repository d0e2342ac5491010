"""One record as the record view shows it: the record, its matches, its history."""

from django.db.models import F, Q

from poimen.models import Event, Match, Record, Review


def record_detail(record_id: int) -> Record:
    return Record.objects.select_related("best_artifact", "review", "review__reviewer", "run").get(
        pk=record_id
    )


def record_matches(record: Record) -> list[Match]:
    return list(
        Match.objects.filter(record=record).select_related("artifact").order_by("-overlap", "id")
    )


def latest_own_verdict(user) -> Review | None:
    """`user`'s latest single verdict that is still the one in force on its record."""
    return (
        Review.objects.filter(reviewer=user, withdrawn_at=None, bulk=None, record__review=F("pk"))
        .order_by("-id")
        .first()
    )


def record_events(record: Record) -> list[Event]:
    """The record's own events, and the bulk verdicts (one event each) that judged it."""
    bulks = list(
        Review.objects.filter(record=record, bulk__isnull=False).values_list("bulk_id", flat=True)
    )
    mine = Q(record=record)
    if bulks:
        mine |= Q(pk__in=bulks) | Q(type=Event.Type.REVIEW_BULK_UNDONE, data__bulk__in=bulks)
    events = Event.objects.filter(mine)
    return list(events.select_related("actor", "artifact").order_by("-id"))
