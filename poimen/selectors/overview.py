"""The overview's numbers: records per kind of artifact by decision, near misses, reviews."""

from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import BooleanField, Count, ExpressionWrapper, QuerySet

from poimen.models import Record, Review
from poimen.policies import Policies
from poimen.selectors.cache import cache_key, cached, decision_version
from poimen.selectors.kinds import kinds_known
from poimen.selectors.lists import near_miss_condition


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
    near = ExpressionWrapper(near_miss_condition(), output_field=BooleanField())
    return list(
        queryset.annotate(near=near)
        .values("best_artifact__kind", "derived", "near", *fields)
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
    totals = {"evidence": 0, "excluded": 0}
    no_kind = KindCounts(kind="", threshold=policies.threshold_for(""))

    def entry(kind):
        if kind is None:
            return no_kind
        return counts.setdefault(
            kind, KindCounts(kind=kind, threshold=policies.threshold_for(kind))
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
    return cached("counts", _counts)[0]


def totals() -> dict[str, int]:
    return cached("counts", _counts)[1]
