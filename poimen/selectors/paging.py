"""Keyset paging for the desk's lists: steady cost per page however far in (never OFFSET). The
review lists are counted exactly (list_counts); other pages (the audit log) count up to
COUNT_CAP."""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.db.models import Count, IntegerField, Q, QuerySet
from django.db.models.expressions import RawSQL

from poimen.models import Record
from poimen.selectors.common import COUNT_CAP, PAGE_SIZE

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)


@dataclass(frozen=True)
class Progress:
    """How much of a list reviewers have judged: n of N, and what is left."""

    reviewed: int
    total: int
    left: int

    @property
    def described(self) -> str:
        """In words, as review mode shows it: "12 of 40 reviewed, 28 left"."""
        return f"{self.reviewed:,} of {self.total:,} reviewed, {self.left:,} left"


@dataclass
class Page:
    items: list
    next_cursor: str | None
    count: int
    count_capped: bool
    first: bool = True
    extra: dict = field(default_factory=dict)
    # A review list's exact counts (list_counts); None for other pages.
    progress: Progress | None = None


def capped_count(queryset: QuerySet, cap: int | None = None) -> tuple[int, bool]:
    """How many rows, counting no further than `cap` (COUNT_CAP unless given: the table may
    hold millions)."""
    cap = cap or COUNT_CAP
    count = queryset.order_by().values("id")[: cap + 1].count()
    return min(count, cap), count > cap


def list_counts(queryset: QuerySet) -> Progress:
    """A review list's exact counts: its records and those without a verdict, in one pass.

    On PostgreSQL that pass is an index-only scan: each list's index (record_decided_overlap,
    record_matched_evidence) carries every column the list's filters other than search test,
    the best artifact's kind and the verdict included."""
    counted = queryset.order_by().aggregate(
        total=Count("id"), left=Count("id", filter=Q(review__isnull=True))
    )
    total, left = counted["total"], counted["left"]
    return Progress(reviewed=total - left, total=total, left=left)


def next_unreviewed(queryset: QuerySet, *, sort: str, cursor: str = ""):
    """The first record of a list without a verdict, after `cursor`, and its own cursor; or
    None when there is none left.

    Any filter on `queryset` (a reviewer's claims, say) is applied inside each index walk, so
    it costs a test per row read, never a sort."""
    rows = queryset.filter(review__isnull=True)
    record = _rows_after(rows, sort, cursor, limit=1).first()
    return (record, _cursor_for(record, sort)) if record is not None else None


def _page(
    queryset: QuerySet,
    rows: QuerySet,
    *,
    cursor: str,
    size: int,
    cursor_for: Callable[[object], str],
    progress: Progress | None = None,
) -> Page:
    """A page of `rows` (already past the cursor), counted over the whole `queryset`: exactly
    by `progress` when given, else up to COUNT_CAP."""
    count, capped = (progress.total, False) if progress else capped_count(queryset)
    items = list(rows[: size + 1])
    next_cursor = cursor_for(items[size - 1]) if len(items) > size else None
    return Page(
        items=items[:size],
        next_cursor=next_cursor,
        count=count,
        count_capped=capped,
        first=not cursor,
        progress=progress,
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


def _parse(cursor: str, spec: Sort):
    """A cursor's (value, id), or None when it does not parse (the list starts again)."""
    try:
        head, _, raw_id = cursor[1:].rpartition("_")
        record_id = int(raw_id)
        if cursor[0] != spec.prefix:
            return None
        value = spec.decode(head)
    except (ValueError, IndexError, OverflowError):
        return None
    if value != value:  # NaN orders nowhere
        return None
    return value, record_id


def _walked(rows: QuerySet, spec: Sort, *, key, forward: bool, limit: int) -> QuerySet:
    """`rows` narrowed to what the next `limit` of them can be, where the sort's key is an
    annotation no index serves whole (selectors.closeness): the first `limit` of each of the
    ranges an index walks in the list's order, merged in one query. Other sorts walk their
    index as they are."""
    expression = rows.query.annotations.get(spec.key)
    ranges = getattr(expression, "ranges", None)
    if ranges is None:
        return rows
    parts = []
    params = []
    for number, side in enumerate(ranges()):
        part = side.walk(rows, key=key, forward=forward).values("id")[:limit]
        sql, part_params = part.query.get_compiler(using=part.db).as_sql()
        # Each walk as a derived table: its ORDER BY and LIMIT hold inside a UNION on
        # PostgreSQL and SQLite alike.
        parts.append(f"SELECT id FROM ({sql}) AS walk{number}")
        params.extend(part_params)
    union = RawSQL(" UNION ALL ".join(parts), params, output_field=IntegerField())
    return rows.filter(id__in=union)


def _rows_after(queryset: QuerySet, sort: str, cursor: str, *, limit: int) -> QuerySet:
    """The list's rows after `cursor` (all of them for none, or one that does not parse), in
    its order, ready for the first `limit` to be read."""
    spec = sort_of(sort)
    parsed = _parse(cursor, spec) if cursor else None
    rows = queryset
    if parsed is not None:
        rows = _past(queryset, spec, *parsed, forward=True)
    key = parsed[0] if parsed is not None else None
    return _walked(rows, spec, key=key, forward=True, limit=limit)


def _before(queryset: QuerySet, record: Record, sort: str) -> QuerySet:
    """Rows before `record` in the list's order, nearest first."""
    spec = sort_of(sort)
    value = getattr(record, spec.key)
    rows = _past(queryset, spec, value, record.pk, forward=False)
    sign = "" if spec.descending else "-"
    rows = rows.order_by(f"{sign}{spec.key}", f"{sign}id")
    return _walked(rows, spec, key=value, forward=False, limit=1)


def page_of(queryset: QuerySet, *, sort: str, cursor: str = "", size: int | None = None) -> Page:
    """A page of a review list sorted by `sort`, after `cursor`, with its exact counts."""
    size = size or PAGE_SIZE
    return _page(
        queryset,
        _rows_after(queryset, sort, cursor, limit=size + 1),
        cursor=cursor,
        size=size,
        cursor_for=lambda r: _cursor_for(r, sort),
        progress=list_counts(queryset),
    )


def first_rows(queryset: QuerySet, *, sort: str, size: int) -> list:
    """The first `size` rows of a review list sorted by `sort`, without counting it."""
    return list(_rows_after(queryset, sort, "", limit=size)[:size])


def neighbours(queryset: QuerySet, record: Record, *, sort: str) -> tuple[int | None, int | None]:
    """The ids of the records before and after `record` in a list, for j/k on the record view.
    `record` must carry the sort's key (an annotation such as closeness included)."""
    previous = _before(queryset, record, sort).values_list("id", flat=True).first()
    after = _rows_after(queryset, sort, _cursor_for(record, sort), limit=1)
    return previous, after.values_list("id", flat=True).first()


# --- rows by id, newest first (the audit log) -------------------------------------------------


def page_by_id(queryset: QuerySet, *, cursor: str = "", size: int | None = None) -> Page:
    """A page of rows ordered by descending id, after the id in `cursor`."""
    size = size or PAGE_SIZE
    rows = queryset
    try:
        rows = rows.filter(id__lt=int(cursor)) if cursor else rows
    except ValueError:
        pass
    return _page(queryset, rows, cursor=cursor, size=size, cursor_for=lambda row: str(row.pk))
