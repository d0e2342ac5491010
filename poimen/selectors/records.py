"""One record as the record view shows it: the record, its matches, its history."""

from poimen.models import Event, Match, Record


def record_detail(record_id: int) -> Record:
    return Record.objects.select_related("best_artifact", "review", "review__reviewer", "run").get(
        pk=record_id
    )


def record_matches(record: Record) -> list[Match]:
    return list(
        Match.objects.filter(record=record).select_related("artifact").order_by("-overlap", "id")
    )


def record_events(record: Record) -> list[Event]:
    return list(
        Event.objects.filter(record=record).select_related("actor", "artifact").order_by("-id")
    )
