"""Reads the review desk needs: filtered lists with keyset paging, counts, the histogram and the
threshold preview. Querysets or plain data; nothing here writes.

Built for 10^6 records: lists page by keyset (never OFFSET), counts stop at COUNT_CAP ("more
than 1,000"), and the aggregates over whole tables are cached under a key that changes whenever
the data does (the newest event and the newest record), so a page never shows stale numbers.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import (
    BooleanField,
    Count,
    ExpressionWrapper,
    F,
    FloatField,
    Max,
    Q,
    QuerySet,
    Value,
)
from django.db.models.functions import Cast, Floor, Greatest, Length, Lower, StrIndex, Substr
from django.utils import timezone

from filter import DEFAULT_PARAMS, match_passages, shingle_text
from poimen.filtering import artifact_to_record
from poimen.models import Artifact, Event, IngestRun, KindPolicy, Match, Record, Review

PAGE_SIZE = 50
COUNT_CAP = 1000
SNIPPET_CHARS = 240
# A search's snippet starts this many characters before the first hit.
SNIPPET_LEAD = 60
HISTOGRAM_BINS = 20
# A passage is boilerplate when most of its shingles occur in at least this many artifacts
# (distinct kind and name: versions of one skill count once).
BOILERPLATE_MIN_ARTIFACTS = 3
DEFAULT_THRESHOLD = KindPolicy._meta.get_field("threshold").default
DEFAULT_MIN_SHARED = KindPolicy._meta.get_field("min_shared").default
UNREVIEWED = "unreviewed"
VERDICTS = [
    UNREVIEWED,
    Review.Verdict.CONFIRMED,
    Review.Verdict.FALSE_POSITIVE,
    Review.Verdict.FALSE_NEGATIVE,
]


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)


def report_floor() -> float:
    return settings.POIMEN_REPORT_FLOOR


# --- policies and kinds -----------------------------------------------------------------------


def policies() -> dict[str, KindPolicy]:
    return {policy.kind: policy for policy in KindPolicy.objects.all()}


def thresholds() -> dict[str, float]:
    return {kind: policy.threshold for kind, policy in policies().items()}


def threshold_for(kind: str) -> float:
    policy = KindPolicy.objects.filter(kind=kind).first()
    return policy.threshold if policy else DEFAULT_THRESHOLD


def min_shared_for(kind: str) -> int:
    policy = KindPolicy.objects.filter(kind=kind).first()
    return policy.min_shared if policy else DEFAULT_MIN_SHARED


def kinds_known() -> list[str]:
    """Every kind with a policy or an artifact (artifacts are thousands, not millions)."""
    artifact_kinds = Artifact.objects.order_by().values_list("kind", flat=True).distinct()
    return sorted(set(artifact_kinds) | set(KindPolicy.objects.values_list("kind", flat=True)))


def runs_for_filter(limit: int = 200) -> list[IngestRun]:
    return list(IngestRun.objects.order_by("-started_at", "-id")[:limit])


def data_version() -> str:
    """Changes whenever anything the aggregates count changes: every write appends an event or
    a record, and thresholds are part of the key. Three index lookups."""
    newest_event = Event.objects.aggregate(n=Max("id"))["n"]
    newest_record = Record.objects.aggregate(n=Max("id"))["n"]
    policy = sorted(KindPolicy.objects.values_list("kind", "threshold", "min_shared"))
    raw = f"{newest_event}:{newest_record}:{policy}:{report_floor()}"
    return hashlib.sha1(raw.encode()).hexdigest()[:16]


def _cache_key(*parts) -> str:
    """A cache key safe for any backend (no spaces or odd characters, bounded length)."""
    return "poimen:" + hashlib.sha1(repr(parts).encode()).hexdigest()


def _cached(name: str, compute, *args):
    key = _cache_key(name, data_version(), args)
    value = cache.get(key)
    if value is None:
        value = compute(*args)
        cache.set(key, value, timeout=3600)
    return value


# --- lists ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ListFilters:
    q: str = ""
    kind: str = ""
    artifact: int | None = None
    overlap_min: float | None = None
    overlap_max: float | None = None
    verdict: str = ""
    source: str = ""
    run: int | None = None
    date_from: date | None = None
    date_to: date | None = None
    sort: str = "overlap"


@dataclass
class Page:
    items: list
    next_cursor: str | None
    count: int
    count_capped: bool
    first: bool = True
    extra: dict = field(default_factory=dict)


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min), timezone.get_current_timezone())


def _apply_common_filters(queryset: QuerySet, filters: ListFilters) -> QuerySet:
    if filters.kind:
        # The kind's artifacts as a list of ids (thousands at most), not a join: the planner
        # then walks the record indexes instead of hashing the whole table.
        ids = list(Artifact.objects.filter(kind=filters.kind).values_list("id", flat=True))
        queryset = queryset.filter(best_artifact_id__in=ids)
    if filters.artifact:
        # The artifact a record was matched to best, or any artifact it matched above the floor.
        queryset = queryset.filter(
            Q(best_artifact_id=filters.artifact)
            | Q(id__in=Match.objects.filter(artifact_id=filters.artifact).values("record_id"))
        )
    if filters.overlap_min is not None:
        queryset = queryset.filter(best_overlap__gte=filters.overlap_min)
    if filters.overlap_max is not None:
        queryset = queryset.filter(best_overlap__lte=filters.overlap_max)
    if filters.source:
        queryset = queryset.filter(source=filters.source)
    if filters.run:
        queryset = queryset.filter(run_id=filters.run)
    if filters.date_from:
        queryset = queryset.filter(created_at__gte=_day_start(filters.date_from))
    if filters.date_to:
        queryset = queryset.filter(created_at__lt=_day_start(filters.date_to + timedelta(days=1)))
    if filters.q:
        queryset = queryset.filter(text__icontains=filters.q)
    return queryset


def _for_listing(queryset: QuerySet, filters: ListFilters) -> QuerySet:
    """Rows for a list: a snippet instead of the whole text, related rows in the same query."""
    # One character more than is shown, so the template knows the text goes on (and says so).
    if filters.q:
        # Start the snippet a little before the first hit, so the reader sees why it matched.
        position = StrIndex(Lower("text"), Value(filters.q.lower()))
        snippet_from = Greatest(position - SNIPPET_LEAD, 1)
    else:
        snippet_from = Value(1)
    snippet = Substr("text", snippet_from, SNIPPET_CHARS + 1)
    queryset = queryset.select_related("best_artifact", "review", "review__reviewer", "run")
    queryset = queryset.defer("text", "metadata", "coverage", "best_artifact__text")
    queryset = queryset.defer("best_artifact__shingles")
    return queryset.annotate(snippet=snippet, snippet_from=snippet_from)


def _sorted(queryset: QuerySet, sort: str) -> QuerySet:
    if sort == "time":
        return queryset.order_by("-created_at", "-id")
    return queryset.order_by("-best_overlap", "-id")


def exclusion_list(*, filters: ListFilters) -> QuerySet:
    """Records the filter or a reviewer excluded; with verdict "false_positive", the released."""
    if filters.verdict == Review.Verdict.FALSE_POSITIVE:
        queryset = Record.objects.filter(review__verdict=Review.Verdict.FALSE_POSITIVE)
    else:
        queryset = Record.objects.filter(status=Record.Status.EXCLUDED)
        if filters.verdict == UNREVIEWED:
            queryset = queryset.filter(review__isnull=True)
        elif filters.verdict:
            queryset = queryset.filter(review__verdict=filters.verdict)
    queryset = _apply_common_filters(queryset, filters)
    return _sorted(_for_listing(queryset, filters), filters.sort)


def _below_threshold() -> Q:
    """best_overlap at or under the threshold of the kind of the record's best artifact."""
    per_kind = thresholds()
    condition = Q(best_overlap__lte=DEFAULT_THRESHOLD) & ~Q(best_artifact__kind__in=list(per_kind))
    for kind, threshold in per_kind.items():
        condition |= Q(best_artifact__kind=kind, best_overlap__lte=threshold)
    return condition


def near_miss_list(*, filters: ListFilters) -> QuerySet:
    """Evidence whose best overlap is under its kind's threshold and at or over the reporting
    floor, best first: the copies the filter may have let through."""
    queryset = Record.objects.filter(
        status=Record.Status.EVIDENCE, best_overlap__gte=report_floor()
    ).filter(_below_threshold())
    queryset = _apply_common_filters(queryset, filters)
    return _sorted(_for_listing(queryset, filters), filters.sort)


def list_row(record_id: int) -> Record:
    """One record as a list shows it (after a verdict changed it)."""
    return _for_listing(Record.objects.filter(pk=record_id), ListFilters()).get()


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
    ordering = [key, "id"]
    return (
        queryset.filter(**{f"{key}__gte": value})
        .filter(Q(**{f"{key}__gt": value}) | Q(id__gt=record.pk))
        .order_by(*ordering)
    )


def capped_count(queryset: QuerySet, cap: int = COUNT_CAP) -> tuple[int, bool]:
    """How many rows, counting no further than `cap` (the table may hold millions)."""
    count = queryset.order_by().values("id")[: cap + 1].count()
    return min(count, cap), count > cap


def page_of(queryset: QuerySet, *, sort: str, cursor: str = "", size: int | None = None) -> Page:
    size = size or PAGE_SIZE
    count, capped = capped_count(queryset)
    rows = queryset
    if cursor:
        rows = _after_cursor(rows, cursor, sort)
    items = list(rows[: size + 1])
    next_cursor = _cursor_for(items[size - 1], sort) if len(items) > size else None
    return Page(
        items=items[:size],
        next_cursor=next_cursor,
        count=count,
        count_capped=capped,
        first=not cursor,
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


def export_rows(queryset: QuerySet):
    """Every row of a filtered list, streamed: (record, best artifact) without loading them all."""
    queryset = queryset.order_by("-id").select_related("best_artifact", "review")
    queryset = queryset.defer("best_artifact__text", "best_artifact__shingles", "metadata")
    return queryset.iterator(chunk_size=2000)


# --- overview and counts ----------------------------------------------------------------------


@dataclass
class KindCounts:
    kind: str
    threshold: float
    evidence: int = 0
    excluded: int = 0
    near_misses: int = 0
    unreviewed: int = 0
    reviewed: int = 0

    @property
    def to_review(self) -> int:
        return self.reviewed + self.unreviewed


def _grouped(queryset: QuerySet, *fields: str) -> list[dict]:
    """Records counted by best artifact kind, the filter's decision, near-miss band, fields."""
    near = ExpressionWrapper(
        Q(best_overlap__gte=report_floor()) & _below_threshold(), output_field=BooleanField()
    )
    return list(
        queryset.annotate(near=near)
        .values("best_artifact__kind", "derived", "near", *fields)
        .annotate(n=Count("id"))
        .order_by()
    )


def decision_version() -> str:
    """Changes when the filter's decisions can change (ingest, refilter, a threshold change),
    not when a reviewer judges: new record or match ids, a threshold_changed event."""
    newest = (
        Record.objects.aggregate(n=Max("id"))["n"],
        Match.objects.aggregate(n=Max("id"))["n"],
        Event.objects.filter(type=Event.Type.THRESHOLD_CHANGED).aggregate(n=Max("id"))["n"],
        sorted(KindPolicy.objects.values_list("kind", "threshold", "min_shared")),
        report_floor(),
    )
    return _cache_key("decisions", newest)


def _counts() -> tuple[list[KindCounts], dict[str, int]]:
    """Counts from the filter's decisions (cached while they stand) corrected by the records
    reviewers judged (a few thousand, read each time the data changed): a record without a
    verdict has the status its decision gives it."""
    base_key = _cache_key("decided", decision_version())
    decided = cache.get(base_key)
    if decided is None:
        decided = _grouped(Record.objects.all())
        cache.set(base_key, decided, timeout=3600)
    judged = _grouped(Record.objects.filter(review__isnull=False), "status")

    per_kind = thresholds()
    counts: dict[str, KindCounts] = {
        kind: KindCounts(kind=kind, threshold=per_kind.get(kind, DEFAULT_THRESHOLD))
        for kind in kinds_known()
    }
    totals = {"evidence": 0, "excluded": 0}
    no_kind = KindCounts(kind="", threshold=DEFAULT_THRESHOLD)

    def entry(kind):
        if kind is None:
            return no_kind
        return counts.setdefault(
            kind, KindCounts(kind=kind, threshold=per_kind.get(kind, DEFAULT_THRESHOLD))
        )

    for row in decided:
        counted = entry(row["best_artifact__kind"])
        if row["derived"]:
            counted.excluded += row["n"]
        else:
            counted.evidence += row["n"]
            counted.near_misses += row["n"] if row["near"] else 0
    for row in judged:
        counted = entry(row["best_artifact__kind"])
        excluded = row["status"] == Record.Status.EXCLUDED
        if excluded:
            counted.reviewed += row["n"]
        if row["derived"] and not excluded:
            counted.excluded -= row["n"]
            counted.evidence += row["n"]
            counted.near_misses += row["n"] if row["near"] else 0
        elif not row["derived"] and excluded:
            counted.excluded += row["n"]
            counted.evidence -= row["n"]
            counted.near_misses -= row["n"] if row["near"] else 0
    for counted in [*counts.values(), no_kind]:
        counted.unreviewed = counted.excluded - counted.reviewed
        totals["evidence"] += counted.evidence
        totals["excluded"] += counted.excluded
    totals["records"] = totals["evidence"] + totals["excluded"]
    totals["reviews"] = Review.objects.count()
    return sorted(counts.values(), key=lambda c: c.kind), totals


def kind_counts() -> list[KindCounts]:
    """Per kind: evidence and excluded records (by their best artifact's kind), near misses,
    exclusions reviewed and not."""
    return _cached("counts", _counts)[0]


def totals() -> dict[str, int]:
    return _cached("counts", _counts)[1]


def unfiltered_runs() -> list[IngestRun]:
    """Runs that bypassed the filter, newest first, each with `.refiltered`: the first refilter
    of every kind that started after the run had finished (its records then re-checked), or
    None while their records stand unchecked."""
    runs = list(IngestRun.objects.filter(filtered=False).order_by("-started_at", "-id")[:20])
    full_refilters = list(
        Event.objects.filter(type=Event.Type.RECORDS_REFILTERED, kind="").order_by("created_at")
    )
    for run in runs:
        run.refiltered = next(
            (e for e in full_refilters if run.finished_at and _started(e) >= run.finished_at),
            None,
        )
    return runs


def _started(refilter: Event) -> datetime:
    started = refilter.data.get("started_at")
    return datetime.fromisoformat(started) if started else refilter.created_at


def recent_runs(limit: int = 8) -> list[IngestRun]:
    return list(IngestRun.objects.order_by("-started_at", "-id")[:limit])


def run_list() -> QuerySet:
    return IngestRun.objects.order_by("-started_at", "-id")


# --- records ----------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class MarkedPassage:
    number: int
    record_span: tuple[int, int]
    artifact_span: tuple[int, int] | None
    shared: int
    boilerplate: bool


def _shingle_document_frequency() -> tuple[np.ndarray, np.ndarray]:
    """Each distinct artifact shingle and the number of artifacts holding it, an artifact
    being a (kind, name): the versions of one skill, or a text-less copy from a manifest,
    share their text with it and are not "many artifacts"."""
    per_artifact: dict[tuple[str, str], list[np.ndarray]] = {}
    rows = (
        Artifact.objects.filter(
            shingle_normaliser=DEFAULT_PARAMS.normaliser,
            shingle_k=DEFAULT_PARAMS.k,
            shingle_hash=DEFAULT_PARAMS.hash,
        )
        .values_list("kind", "name", "shingles")
        .iterator(chunk_size=500)
    )
    for kind, name, blob in rows:
        per_artifact.setdefault((kind, name), []).append(np.frombuffer(bytes(blob), dtype="<u8"))
    if not per_artifact:
        return np.empty(0, dtype="<u8"), np.empty(0, dtype=np.int64)
    distinct = [np.unique(np.concatenate(versions)) for versions in per_artifact.values()]
    return np.unique(np.concatenate(distinct), return_counts=True)


_frequency_cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def shingle_document_frequency() -> tuple[np.ndarray, np.ndarray]:
    """Kept in the process (numpy arrays), rebuilt when an artifact is added."""
    key = str(Artifact.objects.aggregate(n=Max("id"), c=Count("id")))
    if key not in _frequency_cache:
        _frequency_cache.clear()
        _frequency_cache[key] = _shingle_document_frequency()
    return _frequency_cache[key]


def is_boilerplate(passage_text: str) -> bool:
    """A passage whose shingles mostly occur in many artifacts: a licence, a stock heading."""
    shingles, _ = shingle_text(passage_text, DEFAULT_PARAMS)
    known, counts = shingle_document_frequency()
    if not len(shingles) or not len(known):
        return False
    positions = np.searchsorted(known, shingles)
    positions[positions >= len(known)] = 0
    frequency = np.where(known[positions] == shingles, counts[positions], 0)
    return bool(np.median(frequency) >= BOILERPLATE_MIN_ARTIFACTS)


def passages_for(record: Record, artifact: Artifact) -> list[MarkedPassage]:
    passages = match_passages(record.text, artifact_to_record(artifact))
    return [
        MarkedPassage(
            number=p.number,
            record_span=p.record_span,
            artifact_span=p.artifact_span,
            shared=p.shared,
            boilerplate=is_boilerplate(record.text[p.record_span[0] : p.record_span[1]]),
        )
        for p in passages
    ]


# --- artifacts --------------------------------------------------------------------------------


def _exclusions_per_artifact() -> dict[int, int]:
    rows = (
        Record.objects.filter(status=Record.Status.EXCLUDED, best_artifact__isnull=False)
        .values("best_artifact_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {row["best_artifact_id"]: row["n"] for row in rows}


def artifact_list(*, kind: str = "") -> list[tuple[Artifact, int]]:
    """Artifacts with the number of records each excluded, most first."""
    excluded = _cached("exclusions_per_artifact", _exclusions_per_artifact)
    artifacts = (
        Artifact.objects.defer("text", "shingles")
        .annotate(text_length=Length("text"))
        .order_by("kind", "name", "-emitted_at")
    )
    if kind:
        artifacts = artifacts.filter(kind=kind)
    rows = [(artifact, excluded.get(artifact.pk, 0)) for artifact in artifacts]
    rows.sort(key=lambda row: (row[0].kind, -row[1], row[0].name))
    return rows


def artifact_matches(artifact: Artifact, limit: int = PAGE_SIZE) -> list[Match]:
    return list(
        Match.objects.filter(artifact=artifact)
        .select_related("record", "record__review")
        .defer("record__text", "record__metadata", "record__coverage")
        .annotate(snippet=Substr("record__text", 1, SNIPPET_CHARS + 1))
        .order_by("-overlap", "-id")[:limit]
    )


def artifact_match_count(artifact: Artifact) -> tuple[int, bool]:
    return capped_count(Match.objects.filter(artifact=artifact))


# --- audit log --------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditFilters:
    type: str = ""
    kind: str = ""
    actor: str = ""
    date_from: date | None = None
    date_to: date | None = None


def audit_list(*, filters: AuditFilters) -> QuerySet:
    events = Event.objects.select_related("actor", "record", "artifact", "run")
    events = events.defer("record__text", "record__metadata", "record__coverage")
    events = events.defer("artifact__text", "artifact__shingles")
    if filters.type:
        events = events.filter(type=filters.type)
    if filters.kind:
        events = events.filter(kind=filters.kind)
    if filters.actor:
        user_model = get_user_model()
        events = events.filter(**{f"actor__{user_model.USERNAME_FIELD}": filters.actor})
    if filters.date_from:
        events = events.filter(created_at__gte=_day_start(filters.date_from))
    if filters.date_to:
        events = events.filter(created_at__lt=_day_start(filters.date_to + timedelta(days=1)))
    return events.order_by("-id")


def audit_page(queryset: QuerySet, *, cursor: str = "", size: int | None = None) -> Page:
    size = size or PAGE_SIZE
    count, capped = capped_count(queryset)
    rows = queryset
    try:
        rows = rows.filter(id__lt=int(cursor)) if cursor else rows
    except ValueError:
        pass
    items = list(rows[: size + 1])
    next_cursor = str(items[size - 1].pk) if len(items) > size else None
    return Page(
        items=items[:size],
        next_cursor=next_cursor,
        count=count,
        count_capped=capped,
        first=not cursor,
    )


# --- threshold tuning -------------------------------------------------------------------------


@dataclass
class Histogram:
    kind: str
    bins: int
    # counts[verdict][bin]
    counts: dict[str, list[int]]

    @property
    def totals(self) -> list[int]:
        return [sum(self.counts[v][i] for v in VERDICTS) for i in range(self.bins)]


def _binned(matches: QuerySet, *fields: str) -> list[dict]:
    return list(
        matches.annotate(bin=Cast(Floor(F("overlap") * HISTOGRAM_BINS), FloatField()))
        .values("bin", *fields)
        .annotate(n=Count("id"))
        .order_by()
    )


def _overlap_histogram(kind: str) -> Histogram:
    """All matches of the kind binned once while the matches stand (overlaps change only with
    ingest or refilter); the judged records' matches binned by verdict on each change."""
    matches = Match.objects.filter(artifact__kind=kind)
    all_key = _cache_key("binned", kind, decision_version())
    everything = cache.get(all_key)
    if everything is None:
        everything = _binned(matches)
        cache.set(all_key, everything, timeout=3600)
    counts = {verdict: [0] * HISTOGRAM_BINS for verdict in VERDICTS}

    def index(row) -> int:
        return min(max(int(row["bin"]), 0), HISTOGRAM_BINS - 1)

    for row in everything:
        counts[UNREVIEWED][index(row)] += row["n"]
    for row in _binned(matches.filter(record__review__isnull=False), "record__review__verdict"):
        counts[row["record__review__verdict"]][index(row)] += row["n"]
        counts[UNREVIEWED][index(row)] -= row["n"]
    return Histogram(kind=kind, bins=HISTOGRAM_BINS, counts=counts)


def overlap_histogram(kind: str) -> Histogram:
    """Stored matches of a kind by overlap (20 bins of 0.05), stacked by the verdict in force
    on their record. Cached until the data changes."""
    return _cached("histogram", _overlap_histogram, kind)


@dataclass
class PreviewSample:
    record_id: int
    match_id: int
    artifact: str
    overlap: float
    status: str
    verdict: str | None
    would_exceed: bool


@dataclass
class ThresholdPreview:
    kind: str
    value: float
    current: float
    newly_excluded: int
    newly_released: int
    flagged: dict[str, int]
    sample: list[PreviewSample]

    @property
    def flagged_total(self) -> int:
        return sum(self.flagged.values())


def _stitched(kind: str, min_shared: int) -> dict[int, float]:
    """Records that several artifacts of `kind` cover together, with enough shared shingles:
    {record id: coverage} (the filter's "stitched from several artifacts" rule)."""
    rows = Record.objects.filter(
        **{f"coverage__{kind}__artifacts__gt": 1, f"coverage__{kind}__shared__gte": min_shared}
    ).values_list("id", f"coverage__{kind}__coverage")
    return {pk: float(coverage) for pk, coverage in rows}


VERDICT_CODES = {None: 0, **{v: n for n, v in enumerate(VERDICTS[1:], start=1)}}


@dataclass(frozen=True)
class DecisionTable:
    """For every record that a `kind` threshold can decide: the score that decides it (its
    best qualifying overlap with an artifact of the kind, or its stitched coverage), whether
    something else keeps it derived whatever that threshold, and the filter's decision now,
    by record id (sorted). A preview is then arithmetic on arrays."""

    ids: np.ndarray
    score: np.ndarray
    held_by_other: np.ndarray
    derived: np.ndarray


def _decision_table(kind: str) -> DecisionTable:
    per_kind = policies()
    min_shared = per_kind[kind].min_shared if kind in per_kind else DEFAULT_MIN_SHARED
    kind_ids = list(Artifact.objects.filter(kind=kind).values_list("id", flat=True))
    rows = (
        Match.objects.filter(artifact_id__in=kind_ids, shared__gte=min_shared)
        .values("record_id", "record__derived")
        .annotate(score=Max("overlap"))
        .order_by()
    )
    table = {row["record_id"]: [row["score"], row["record__derived"]] for row in rows}
    stitched = _stitched(kind, min_shared)
    missing = [pk for pk in stitched if pk not in table]
    for pk, derived in Record.objects.filter(pk__in=missing).values_list("id", "derived"):
        table[pk] = [-1.0, derived]
    for pk, coverage in stitched.items():
        if pk in table:
            table[pk][0] = max(table[pk][0], coverage)

    # What keeps a record derived whatever this kind's threshold: another kind's rule.
    others = Q(pk__in=[])
    for other in kinds_known():
        if other == kind:
            continue
        policy = per_kind.get(other)
        others |= Q(
            artifact__kind=other,
            overlap__gt=policy.threshold if policy else DEFAULT_THRESHOLD,
            shared__gte=policy.min_shared if policy else DEFAULT_MIN_SHARED,
        )
    held = (
        set(
            Match.objects.filter(others, record_id__in=list(table))
            .values_list("record_id", flat=True)
            .distinct()
        )
        if len(table) < 50_000
        else set(Match.objects.filter(others).values_list("record_id", flat=True).distinct())
    )
    for other in kinds_known():
        if other != kind:
            policy = per_kind.get(other)
            threshold = policy.threshold if policy else DEFAULT_THRESHOLD
            shared = policy.min_shared if policy else DEFAULT_MIN_SHARED
            held.update(pk for pk, c in _stitched(other, shared).items() if c > threshold)

    ids = sorted(table)
    return DecisionTable(
        ids=np.array(ids, dtype=np.int64),
        score=np.array([table[pk][0] for pk in ids], dtype=float),
        held_by_other=np.array([pk in held for pk in ids], dtype=bool),
        derived=np.array([table[pk][1] for pk in ids], dtype=bool),
    )


def _verdicts(table: DecisionTable) -> np.ndarray:
    """The verdict in force on each record of the table (0: none), from the judged records."""
    codes = np.zeros(len(table.ids), dtype=np.int8)
    judged = list(Record.objects.filter(review__isnull=False).values_list("id", "review__verdict"))
    if judged and len(table.ids):
        judged_ids = np.array([pk for pk, _ in judged], dtype=np.int64)
        positions = np.minimum(np.searchsorted(table.ids, judged_ids), len(table.ids) - 1)
        found = table.ids[positions] == judged_ids
        codes[positions[found]] = [
            VERDICT_CODES[verdict] for (_, verdict), hit in zip(judged, found, strict=True) if hit
        ]
    return codes


_decision_tables: dict[str, object] = {}


def decision_table(kind: str) -> tuple[DecisionTable, np.ndarray]:
    """The kind's decision table and the verdicts on its records. The table is kept in the
    process while the filter's decisions stand (built once: about a second at 10^6 records,
    again after an ingest, refilter or threshold change); the verdicts are read again after
    any change (the judged records only)."""
    key = _cache_key("table", kind, decision_version())
    if key not in _decision_tables:
        _decision_tables.clear()
        _decision_tables[key] = _decision_table(kind)
    table = _decision_tables[key]
    verdict_key = _cache_key("verdicts", kind, data_version())
    if verdict_key not in _decision_tables:
        for stale in [k for k in _decision_tables if k != key]:
            del _decision_tables[stale]
        _decision_tables[verdict_key] = _verdicts(table)
    return table, _decision_tables[verdict_key]


def threshold_preview(kind: str, value: float) -> ThresholdPreview:
    """What setting `kind`'s threshold to `value` would do, from the stored matches: the rule
    services.threshold_change applies (filtering.derived_condition), on a decision table.

    Newly excluded: evidence the filter would now call derived; newly released: exclusions it
    would no longer call derived. Records a reviewer has judged keep their verdict and are
    counted apart, by verdict."""
    current = threshold_for(kind)
    table, verdict = decision_table(kind)
    derived_after = table.held_by_other | (table.score > value)
    flips = derived_after != table.derived
    by_verdict = np.bincount(verdict[flips], minlength=len(VERDICTS))
    unreviewed = int(by_verdict[0])
    flagged = {verdict: int(by_verdict[n]) for verdict, n in VERDICT_CODES.items() if verdict}
    newly_derived = int(np.count_nonzero(flips & derived_after & (verdict == 0)))

    near = Match.objects.filter(artifact__kind=kind).select_related("artifact", "record__review")
    near = near.only(
        "id", "overlap", "record_id", "artifact__name", "record__status", "record__review__verdict"
    )
    above = list(near.filter(overlap__gt=value).order_by("overlap", "id")[:5])
    below = list(near.filter(overlap__lte=value).order_by("-overlap", "-id")[:5])
    sample = [
        PreviewSample(
            record_id=m.record_id,
            match_id=m.pk,
            artifact=m.artifact.name,
            overlap=m.overlap,
            status=m.record.status,
            verdict=m.record.review.verdict if m.record.review else None,
            would_exceed=m.overlap > value,
        )
        for m in [*reversed(above), *below]
    ]
    return ThresholdPreview(
        kind=kind,
        value=value,
        current=current,
        newly_excluded=newly_derived,
        newly_released=unreviewed - newly_derived,
        flagged=flagged,
        sample=sample,
    )


def threshold_changes(kind: str, limit: int = 20) -> list:
    from poimen.models import ThresholdChange

    return list(
        ThresholdChange.objects.filter(kind=kind).select_related("actor").order_by("-id")[:limit]
    )
