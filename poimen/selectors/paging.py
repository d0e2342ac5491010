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


@dataclass(frozen=True)
class Progress:
    """How much of a list reviewers have judged: n of N, and what is left."""

    reviewed: int
    total: int

    @property
    def left(self) -> int:
        return max(self.total - self.reviewed, 0)


def reviewed_count(page: "Page", queryset: QuerySet) -> Progress | None:
    """n of N reviewed in a list whose count `page` holds; None when the count is capped
    (a share of "more than 1,000" says nothing)."""
    if page.count_capped:
        return None
    reviewed, _ = capped_count(queryset.filter(review__isnull=False))
    return Progress(reviewed=reviewed, total=page.count)


def next_unreviewed(queryset: QuerySet, *, sort: str, cursor: str = ""):
    """The first record of a list without a verdict, after `cursor`, and its own cursor; or
    None when there is none left."""
    rows = queryset.filter(review__isnull=True)
    rows = _after_cursor(rows, cursor, sort) if cursor else rows
    record = rows.first()
    return (record, _cursor_for(record, sort)) if record is not None else None


def review_progress(queryset: QuerySet) -> "Progress":
    """n of N reviewed in a list (each count stops at COUNT_CAP)."""
    total, _ = capped_count(queryset)
    reviewed, _ = capped_count(queryset.filter(review__isnull=False))
    return Progress(reviewed=reviewed, total=total)


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


# --- records, by one of the list's sorts -----------------------------------------------------


@dataclass(frozen=True)
class Sort:
    """A list order: `key` (a field or an annotation of the queryset), then the id, both
    descending or both ascending; the cursor is `prefix` + the key's value + "_" + id."""

    key: str
    prefix: str
    descending: bool
    encode: Callable[[object], str]
    decode: Callable[[str], object]


def _time_encode(value: datetime) -> str:
    # Microseconds since the epoch: exact, and nothing in it that a URL would mangle.
    return str((value - EPOCH) // MICROSECOND)


SORTS = {
    "overlap": Sort("best_overlap", "o", True, repr, float),
    "time": Sort("created_at", "t", True, _time_encode, lambda v: EPOCH + int(v) * MICROSECOND),
    # The cases that need a human first: overlap nearest the kind's threshold (selectors.lists
    # annotates `closeness`).
    "closeness": Sort("closeness", "c", False, repr, float),
    # Grouped by the artifact matched best (in the order they were registered).
    "artifact": Sort("best_artifact_id", "a", False, str, int),
}


def sort_of(name: str) -> Sort:
    return SORTS.get(name, SORTS["overlap"])


def sorted_by(queryset: QuerySet, sort: str) -> QuerySet:
    spec = sort_of(sort)
    sign = "-" if spec.descending else ""
    return queryset.order_by(f"{sign}{spec.key}", f"{sign}id")


def _cursor_for(record: Record, sort: str) -> str:
    spec = sort_of(sort)
    return f"{spec.prefix}{spec.encode(getattr(record, spec.key))}_{record.pk}"


def _past(queryset: QuerySet, spec: Sort, value, record_id: int, *, forward: bool) -> QuerySet:
    """Rows after (forward) or before (value, id) in the list's order.

    Written as `key <= v AND (key < v OR id < i)`: the first half is an index range, which a
    plain OR of the two cases would hide from the planner."""
    smaller = spec.descending == forward
    op = "lt" if smaller else "gt"
    return queryset.filter(**{f"{spec.key}__{op}e": value}).filter(
        Q(**{f"{spec.key}__{op}": value}) | Q(**{f"id__{op}": record_id})
    )


def _after_cursor(queryset: QuerySet, cursor: str, sort: str) -> QuerySet:
    """Rows after `cursor` in the list's order; a cursor that does not parse means the start."""
    spec = sort_of(sort)
    try:
        head, _, raw_id = cursor[1:].rpartition("_")
        record_id = int(raw_id)
        if cursor[0] != spec.prefix:
            return queryset
        value = spec.decode(head)
    except (ValueError, IndexError, OverflowError):
        return queryset
    if value != value:  # NaN orders nowhere
        return queryset
    return _past(queryset, spec, value, record_id, forward=True)


def _before_cursor(queryset: QuerySet, record: Record, sort: str) -> QuerySet:
    """Rows before `record` in the list's order, nearest first."""
    spec = sort_of(sort)
    rows = _past(queryset, spec, getattr(record, spec.key), record.pk, forward=False)
    sign = "" if spec.descending else "-"
    return rows.order_by(f"{sign}{spec.key}", f"{sign}id")


def page_of(queryset: QuerySet, *, sort: str, cursor: str = "", size: int | None = None) -> Page:
    """A page of a record list sorted by `sort`, after `cursor`."""
    rows = _after_cursor(queryset, cursor, sort) if cursor else queryset
    return _page(
        queryset, rows, cursor=cursor, size=size, cursor_for=lambda r: _cursor_for(r, sort)
    )


def neighbours(queryset: QuerySet, record: Record, *, sort: str) -> tuple[int | None, int | None]:
    """The ids of the records before and after `record` in a list, for j/k on the record view.
    `record` must carry the sort's key (an annotation such as closeness included)."""
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
