"""The audit log, filtered."""

from dataclasses import dataclass
from datetime import date, timedelta

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from poimen.models import Event
from poimen.selectors.common import day_start
from poimen.selectors.paging import Page, page_by_id


@dataclass(frozen=True)
class AuditFilters:
    type: str = ""
    kind: str = ""
    actor: str = ""
    date_from: date | None = None
    date_to: date | None = None


def audit_list(*, filters: AuditFilters) -> QuerySet:
    events = Event.objects.select_related("actor", "record", "artifact", "run")
    events = events.defer(
        "record__text", "record__metadata", "record__coverage", "record__mixed_coverage"
    )
    events = events.defer("artifact__text", "artifact__shingles")
    if filters.type:
        events = events.filter(type=filters.type)
    if filters.kind:
        events = events.filter(kind=filters.kind)
    if filters.actor:
        user_model = get_user_model()
        events = events.filter(**{f"actor__{user_model.USERNAME_FIELD}": filters.actor})
    if filters.date_from:
        events = events.filter(created_at__gte=day_start(filters.date_from))
    if filters.date_to:
        events = events.filter(created_at__lt=day_start(filters.date_to + timedelta(days=1)))
    return events.order_by("-id")


def bulks_undone(events) -> set[int]:
    """Which of the bulk verdicts among `events` were undone (one query for a page)."""
    ids = [e.pk for e in events if e.type == Event.Type.REVIEW_BULK]
    if not ids:
        return set()
    undos = Event.objects.filter(type=Event.Type.REVIEW_BULK_UNDONE, data__bulk__in=ids)
    return set(undos.values_list("data__bulk", flat=True))


def audit_page(queryset: QuerySet, *, cursor: str = "", size: int | None = None) -> Page:
    """A page of the log, newest first."""
    return page_by_id(queryset, cursor=cursor, size=size)
