"""Keyset paging for the desk's lists: steady cost per page however far in (never OFFSET), and
counts that stop at COUNT_CAP."""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.db.models import Q, QuerySet

from poimen.models import Record
from poimen.selectors.common import COUNT_CAP, PAGE_SIZE

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)


@dataclass
class Page:
    items: list
    next_cursor: str | None
    count: int
    count_capped: bool
    first: bool = True
    extra: dict = field(default_factory=dict)


def capped_count(queryset: QuerySet, cap: int | None = None) -> tuple[int, bool]:
    """How many rows, counting no further than `cap` (COUNT_CAP unless given: the table may
    hold millions)."""
    cap = cap or COUNT_CAP
    count = queryset.order_by().values("id")[: cap + 1].count()
    return min(count, cap), count > cap


def _page(
    queryset: QuerySet,
    rows: QuerySet,
    *,
    cursor: str,
    size: int | None,
    cursor_for: Callable[[object], str],
) -> Page:
    """A page of `rows` (already past the cursor), counted over the whole `queryset`."""
    size = size or PAGE_SIZE
    count, capped = capped_count(queryset)
    items = list(rows[: size + 1])
    next_cursor = cursor_for(items[size - 1]) if len(items) > size else None
    return Page(
        items=items[:size],
        next_cursor=next_cursor,
        count=count,
        count_capped=capped,
        first=not cursor,
    )


# --- records, by overlap or by time ---------------------------------------------------------


def _cursor_for(record: Record, sort: str) -> str:
    if sort == "time":
        # Microseconds since the epoch: exact, and nothing in it that a URL would mangle.
        return f"t{(record.created_at - EPOCH) // MICROSECOND}_{record.pk}"
    return f"o{record.best_overlap!r}_{record.pk}"


def _after_cursor(queryset: QuerySet, cursor: str, sort: str) -> QuerySet:
    """Rows after `cursor` in the list's order; a cursor that does not parse means the start.

    Written as `key <= v AND (key < v OR id < i)`: the first half is an index range, which a
    plain OR of the two cases would hide from the planner."""
    try:
        head, _, raw_id = cursor[1:].rpartition("_")
        record_id = int(raw_id)
        if cursor[0] == "t" and sort == "time":
            value = EPOCH + int(head) * MICROSECOND
            key = "created_at"
        elif cursor[0] == "o" and sort != "time":
            value = float(head)
            key = "best_overlap"
        else:
            return queryset
    except (ValueError, IndexError, OverflowError):
        return queryset
    return queryset.filter(**{f"{key}__lte": value}).filter(
        Q(**{f"{key}__lt": value}) | Q(id__lt=record_id)
    )


def _before_cursor(queryset: QuerySet, record: Record, sort: str) -> QuerySet:
    """Rows before `record` in the list's order, nearest first."""
    if sort == "time":
        key, value = "created_at", record.created_at
    else:
        key, value = "best_overlap", record.best_overlap
    return (
        queryset.filter(**{f"{key}__gte": value})
        .filter(Q(**{f"{key}__gt": value}) | Q(id__gt=record.pk))
        .order_by(key, "id")
    )


def page_of(queryset: QuerySet, *, sort: str, cursor: str = "", size: int | None = None) -> Page:
    """A page of a record list sorted by `sort`, after `cursor`."""
    rows = _after_cursor(queryset, cursor, sort) if cursor else queryset
    return _page(
        queryset, rows, cursor=cursor, size=size, cursor_for=lambda r: _cursor_for(r, sort)
    )


def neighbours(queryset: QuerySet, record: Record, *, sort: str) -> tuple[int | None, int | None]:
    """The ids of the records before and after `record` in a list, for j/k on the record view."""
    previous = _before_cursor(queryset, record, sort).values_list("id", flat=True).first()
    following = (
        _after_cursor(queryset, _cursor_for(record, sort), sort)
        .values_list("id", flat=True)
        .first()
    )
    return previous, following


# --- rows by id, newest first (the audit log) -------------------------------------------------


def page_by_id(queryset: QuerySet, *, cursor: str = "", size: int | None = None) -> Page:
    """A page of rows ordered by descending id, after the id in `cursor`."""
    rows = queryset
    try:
        rows = rows.filter(id__lt=int(cursor)) if cursor else rows
    except ValueError:
        pass
    return _page(queryset, rows, cursor=cursor, size=size, cursor_for=lambda row: str(row.pk))
