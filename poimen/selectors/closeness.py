"""Closeness to the threshold: how far a record's best overlap lies from the threshold of its best
artifact's kind, |overlap - threshold|, the order that puts the cases needing a human first.

No index serves that expression, and sorting a whole list on it costs a second at 10^6 records.
But on each side of a threshold closeness follows the overlap: above it (overlap >= t) it grows
with the overlap, below it (overlap < t) it shrinks. So a list in closeness order is the merge
of a few walks of the overlap index, two per distinct threshold (outwards from t, upwards and
downwards), each of which stops after a page. `Closeness` is the annotation a list orders by;
it carries those walks (`ranges()`), and selectors.paging merges them for every page, the
review mode's next record and a record's neighbours (see paging._walked).

On each side the walk's order is the closeness order because floating-point subtraction is
monotonic: overlap o1 <= o2 gives o1 - t <= o2 - t. Two different overlaps could round to the
same closeness only below t / 2, where they would differ by less than 10^-16.
"""

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Case, F, FloatField, Q, QuerySet, Value, When
from django.db.models.functions import Abs

from poimen.decision.policies import Policies
from poimen.models import Artifact

# The cursor's closeness becomes an index bound on the overlap a little wider than exact; the
# exact test on the closeness itself is made on every row the walk reads.
SLACK = 1e-9


@dataclass(frozen=True)
class ThresholdGroup:
    """The records whose closeness is measured from `threshold`: those whose best artifact is in
    `artifact_ids`, or (`rest`) every record no other group takes."""

    threshold: float
    artifact_ids: tuple[int, ...] = ()
    rest: bool = False

    def condition(self, others: tuple[int, ...]) -> Q | None:
        if self.rest:
            # A nullable column: NOT IN alone would leave out the records without an artifact.
            if not others:
                return None
            return ~Q(best_artifact_id__in=others) | Q(best_artifact__isnull=True)
        return Q(best_artifact_id__in=self.artifact_ids)


def threshold_groups(policies: Policies | None = None) -> list[ThresholdGroup]:
    """The records by the threshold their closeness is measured from: one group per threshold
    that differs from the default (the artifacts of the kinds that have it), then the rest.
    Kinds with the default threshold need no group of their own. One query at most."""
    policies = policies or Policies.load()
    default = policies.default_threshold
    kinds_by_threshold = defaultdict(list)
    for kind, threshold in policies.thresholds.items():
        if threshold != default:
            kinds_by_threshold[threshold].append(kind)
    groups = []
    if kinds_by_threshold:
        kind_of_threshold = {k: t for t, kinds in kinds_by_threshold.items() for k in kinds}
        ids = defaultdict(list)
        rows = Artifact.objects.filter(kind__in=kind_of_threshold).values_list("kind", "id")
        for kind, artifact_id in rows.order_by("id"):
            ids[kind_of_threshold[kind]].append(artifact_id)
        groups = [
            ThresholdGroup(threshold, tuple(ids[threshold]))
            for threshold in sorted(kinds_by_threshold)
            if ids[threshold]
        ]
    return [*groups, ThresholdGroup(default, rest=True)]


@dataclass(frozen=True)
class Side:
    """One side of one threshold: the records of a group with overlap >= threshold (`above`)
    or < threshold, which an index walks in closeness order."""

    threshold: float
    above: bool
    group: Q | None

    def walk(self, rows: QuerySet, *, key: float | None, forward: bool) -> QuerySet:
        """`rows` on this side, in closeness order (`forward`) or its reverse, from closeness
        `key` on (None: from the start); ties by id, as in the list."""
        t = self.threshold
        part = rows.filter(best_overlap__gte=t) if self.above else rows.filter(best_overlap__lt=t)
        if self.group is not None:
            part = part.filter(self.group)
        if key is not None:
            # Forward goes away from the threshold, backward towards it.
            if self.above:
                bound = {"best_overlap__gte" if forward else "best_overlap__lte": t + key}
            else:
                bound = {"best_overlap__lte" if forward else "best_overlap__gte": t - key}
            ((lookup, value),) = bound.items()
            widened = value - SLACK if lookup.endswith("gte") else value + SLACK
            part = part.filter(**{lookup: widened})
        rising = self.above == forward
        return part.order_by(
            "best_overlap" if rising else "-best_overlap", "id" if forward else "-id"
        )


class Closeness(Abs):
    """|best overlap - the threshold of the best artifact's kind| as an annotation, which also
    knows the index walks that give its order (`ranges()`)."""

    def __init__(self, groups: list[ThresholdGroup] | None = None, **extra):
        self.groups = groups if groups is not None else threshold_groups()
        super().__init__(F("best_overlap") - threshold_expression(self.groups), **extra)

    def ranges(self) -> list[Side]:
        taken = tuple(i for group in self.groups if not group.rest for i in group.artifact_ids)
        return [
            Side(group.threshold, above, group.condition(taken))
            for group in self.groups
            for above in (True, False)
        ]


def threshold_expression(groups: list[ThresholdGroup]):
    """The threshold each record's closeness is measured from, as an SQL expression."""
    rest = next(group for group in groups if group.rest)
    default = Value(rest.threshold, output_field=FloatField())
    whens = [
        When(best_artifact_id__in=group.artifact_ids, then=Value(group.threshold))
        for group in groups
        if not group.rest
    ]
    return Case(*whens, default=default, output_field=FloatField()) if whens else default
