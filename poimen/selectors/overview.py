"""The overview's numbers: records per kind of artifact by decision, near misses, reviews."""

from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import BooleanField, Count, ExpressionWrapper, Q, QuerySet

from poimen.decision.policies import Policies
from poimen.models import Record, Review
from poimen.selectors.cache import cache_key, cached, decision_version
from poimen.selectors.kinds import kinds_known
from poimen.selectors.lists import near_miss_condition


@dataclass
class KindCounts:
    kind: str
    threshold: float
    evidence: int = 0
    excluded: int = 0
    redacted: int = 0
    near_misses: int = 0
    unreviewed: int = 0
    reviewed: int = 0

    @property
    def to_review(self) -> int:
        return self.reviewed + self.unreviewed


def _grouped(queryset: QuerySet, *fields: str) -> list[dict]:
    """Records counted by best artifact kind, the filter's decision, near-miss band, fields."""
    near = ExpressionWrapper(near_miss_condition(), output_field=BooleanField())
    # a redaction has an evidence text (and cut spans); an exclusion or evidence has none
    redacted = ExpressionWrapper(~Q(evidence_text=""), output_field=BooleanField())
    return list(
        queryset.annotate(near=near, redacted=redacted)
        .values("best_artifact__kind", "derived", "redacted", "near", *fields)
        .annotate(n=Count("id"))
        .order_by()
    )


def _counts() -> tuple[list[KindCounts], dict[str, int]]:
    """Counts from the filter's decisions (cached while they stand) corrected by the records
    reviewers judged (a few thousand, read each time the data changed): a record without a
    verdict has the status its decision gives it."""
    base_key = cache_key("decided", decision_version())
    decided = cache.get(base_key)
    if decided is None:
        decided = _grouped(Record.objects.all())
        cache.set(base_key, decided, timeout=3600)
    judged = _grouped(Record.objects.filter(review__isnull=False), "status")

    policies = Policies.load()
    counts: dict[str, KindCounts] = {
        kind: KindCounts(kind=kind, threshold=policies.threshold_for(kind))
        for kind in kinds_known()
    }
    totals = {"evidence": 0, "excluded": 0, "redacted": 0}
    no_kind = KindCounts(kind="", threshold=policies.default_threshold)

    def entry(kind):
        if kind is None:
            return no_kind
        return counts.setdefault(
            kind, KindCounts(kind=kind, threshold=policies.threshold_for(kind))
        )

    def add(counted: KindCounts, row: dict, status: str, n: int) -> None:
        setattr(counted, status, getattr(counted, status) + n)  # evidence, excluded, redacted
        if status == Record.Status.EVIDENCE and row["near"]:
            counted.near_misses += n

    for row in decided:
        add(entry(row["best_artifact__kind"]), row, _filter_status(row), row["n"])
    for row in judged:
        counted = entry(row["best_artifact__kind"])
        if row["status"] != Record.Status.EVIDENCE:
            counted.reviewed += row["n"]
        if row["status"] != _filter_status(row):
            add(counted, row, _filter_status(row), -row["n"])
            add(counted, row, row["status"], row["n"])
    for counted in [*counts.values(), no_kind]:
        counted.unreviewed = counted.excluded + counted.redacted - counted.reviewed
        totals["evidence"] += counted.evidence
        totals["excluded"] += counted.excluded
        totals["redacted"] += counted.redacted
    totals["records"] = totals["evidence"] + totals["excluded"] + totals["redacted"]
    totals["reviews"] = Review.objects.count()
    return sorted(counts.values(), key=lambda c: c.kind), totals


def _filter_status(row: dict) -> str:
    """The status the filter's decision gives a counted group (Record.filter_status)."""
    if not row["derived"]:
        return Record.Status.EVIDENCE
    return Record.Status.REDACTED if row["redacted"] else Record.Status.EXCLUDED


def kind_counts() -> list[KindCounts]:
    """Per kind: evidence, excluded and redacted records (by their best artifact's kind), near
    misses, exclusions and redactions reviewed and not."""
    return cached("counts", _counts)[0]


def totals() -> dict[str, int]:
    return cached("counts", _counts)[1]
