"""The review lists: exclusions and near misses, filtered, as querysets ready for paging."""

from dataclasses import dataclass
from datetime import date, timedelta

from django.db.models import (
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.functions import Cast, Coalesce, Greatest, Lower, StrIndex, Substr

from poimen.decision.derived_rule import at_most_threshold_condition
from poimen.decision.policies import Policies, report_floor
from poimen.models import IngestRun, Match, Record, Review
from poimen.selectors.closeness import Closeness
from poimen.selectors.common import SNIPPET_CHARS, SNIPPET_LEAD, UNREVIEWED, day_start
from poimen.selectors.paging import neighbours, sorted_by

# The statuses of the records the filter (or a reviewer) kept out of evidence, whole or in part.
DECIDED_STATUSES = [Record.Status.EXCLUDED, Record.Status.REDACTED]


@dataclass(frozen=True)
class ListFilters:
    q: str = ""
    kind: str = ""
    artifact: tuple[int, ...] = ()
    overlap_min: float | None = None
    overlap_max: float | None = None
    verdict: str = ""
    # a false positive's reason (Review.Reason): the records released for it
    reason: str = ""
    # exclusions only: "excluded" (whole) or "redacted"; empty for both
    decision: str = ""
    source: str = ""
    run: int | None = None
    date_from: date | None = None
    date_to: date | None = None
    sort: str = "overlap"


def _apply_common_filters(queryset: QuerySet, filters: ListFilters) -> QuerySet:
    if filters.kind:
        # The record's own copy of its best artifact's kind (Record.best_artifact_kind): the
        # list's index carries it, so a walk and a count test it without reading the table.
        queryset = queryset.filter(best_artifact_kind=filters.kind)
    if filters.artifact:
        # The artifact a record was matched to best, or any artifact it matched above the floor.
        # One set of ids (a union of two index lookups), not an OR of two conditions, which
        # the planner can only test row by row over the whole list.
        best = Record.objects.filter(best_artifact_id__in=filters.artifact).values("id")
        matched = Match.objects.filter(artifact_id__in=filters.artifact).values("record_id")
        queryset = queryset.filter(id__in=best.union(matched))
    if filters.overlap_min is not None:
        queryset = queryset.filter(best_overlap__gte=filters.overlap_min)
    if filters.overlap_max is not None:
        queryset = queryset.filter(best_overlap__lte=filters.overlap_max)
    if filters.source:
        queryset = queryset.filter(source=filters.source)
    if filters.run:
        queryset = queryset.filter(run_id=filters.run)
    if filters.date_from:
        queryset = queryset.filter(created_at__gte=day_start(filters.date_from))
    if filters.date_to:
        queryset = queryset.filter(created_at__lt=day_start(filters.date_to + timedelta(days=1)))
    if filters.q:
        queryset = queryset.filter(text__icontains=filters.q)
    if filters.reason:
        queryset = queryset.filter(review__reason=filters.reason)
    return queryset


def _for_listing(queryset: QuerySet, filters: ListFilters) -> QuerySet:
    """Rows for a list: a snippet instead of the whole text, related rows in the same query."""
    if filters.q:
        # Start the snippet a little before the first hit, so the reader sees why it matched.
        position = StrIndex(Lower("text"), Value(filters.q.lower()))
        snippet_from = Greatest(position - SNIPPET_LEAD, 1)
    else:
        # A little before the first passage copied from its best artifact (a copy may start
        # thousands of characters in); at the start for a record without one.
        snippet_from = Greatest(Coalesce(_first_copied(), 0) + 1 - SNIPPET_LEAD, 1)
    # One character more than is shown, so the template knows the text goes on (and says so).
    snippet = Substr("text", snippet_from, SNIPPET_CHARS + 1)
    # A row shows neither its run nor the record's cut text: the run's JSON columns and the
    # cuts, decoded for fifty rows a page, cost more than the rest of the row.
    queryset = queryset.select_related("best_artifact", "review", "review__reviewer")
    queryset = queryset.defer(
        "text",
        "metadata",
        "coverage",
        "mixed_coverage",
        "evidence_text",
        "cut_spans",
        "identity",
        "best_artifact__text",
        "best_artifact__shingles",
    )
    # Whether its run was in shadow mode (a boolean of the run, not its JSON columns): a
    # subquery, not a join, so the list's count (which strips unused annotations) reads no run.
    shadow = Subquery(IngestRun.objects.filter(pk=OuterRef("run_id")).values("shadow")[:1])
    return queryset.annotate(snippet=snippet, snippet_from=snippet_from, shadow=shadow)


def _first_copied() -> Subquery:
    """Where the record's first passage copied from its best artifact starts (0-based), as a
    subquery on the match's stored spans (one index lookup a row)."""
    start = KeyTextTransform("0", KeyTransform("0", "spans"))
    best = Match.objects.filter(record=OuterRef("pk"), artifact=OuterRef("best_artifact_id"))
    return Subquery(best.annotate(start=Cast(start, IntegerField())).values("start")[:1])


def with_sort_key(queryset: QuerySet, sort: str) -> QuerySet:
    """The annotation a sort orders by, where it is not a field (closeness to the threshold)."""
    if sort == "closeness":
        return queryset.annotate(closeness=Closeness())
    return queryset


def _sorted(queryset: QuerySet, filters: ListFilters) -> QuerySet:
    return sorted_by(with_sort_key(queryset, filters.sort), filters.sort)


def list_neighbours(queryset: QuerySet, record: Record, *, sort: str):
    """The records before and after `record` in a sorted list (it need not be in it now)."""
    keyed = with_sort_key(Record.objects.filter(pk=record.pk), sort).get()
    return neighbours(queryset, keyed, sort=sort)


def exclusion_list(*, filters: ListFilters) -> QuerySet:
    """Records the filter or a reviewer excluded or redacted (`decision` says which, empty for
    both); with verdict "false_positive" or a reason, the released."""
    if filters.verdict == Review.Verdict.FALSE_POSITIVE or filters.reason:
        queryset = Record.objects.filter(review__verdict=Review.Verdict.FALSE_POSITIVE)
    else:
        decided = [filters.decision] if filters.decision else DECIDED_STATUSES
        queryset = Record.objects.filter(status__in=decided)
        if filters.verdict == UNREVIEWED:
            queryset = queryset.filter(review__isnull=True)
        elif filters.verdict:
            queryset = queryset.filter(review__verdict=filters.verdict)
    queryset = _apply_common_filters(queryset, filters)
    return _sorted(_for_listing(queryset, filters), filters)


def near_miss_condition() -> Q:
    """Evidence at or over the reporting floor whose best overlap does not pass its kind's
    threshold: a copy the filter may have let through."""
    policies = Policies.load()
    return Q(best_overlap__gte=report_floor()) & at_most_threshold_condition(
        policies, policies.kinds
    )


def near_miss_list(*, filters: ListFilters) -> QuerySet:
    """Near misses (evidence under its threshold, over the floor), best first."""
    queryset = Record.objects.filter(near_miss_condition(), status=Record.Status.EVIDENCE)
    queryset = _apply_common_filters(queryset, filters)
    return _sorted(_for_listing(queryset, filters), filters)


def list_row(record_id: int) -> Record:
    """One record as a list shows it (after a verdict changed it)."""
    return _for_listing(Record.objects.filter(pk=record_id), ListFilters()).get()


def export_rows(queryset: QuerySet):
    """Every row of a filtered list, streamed: (record, best artifact) without loading them all."""
    queryset = queryset.order_by("-id").select_related(
        "best_artifact", "review", "review__reviewer"
    )
    # (metadata is read: the export's provenance fields come from it)
    queryset = queryset.defer("best_artifact__text", "best_artifact__shingles")
    return queryset.iterator(chunk_size=2000)
