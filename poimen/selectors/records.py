"""One record as the record view shows it: the record, its matches, its history."""

from dataclasses import dataclass

from django.db.models import F, Q, QuerySet

from filter.decision import across_kinds_in_force
from poimen.decision.derived_rule import mixed_exceeds_stored
from poimen.decision.policies import Policies
from poimen.models import Event, Match, Record, Review


def for_detail(queryset: QuerySet) -> QuerySet:
    """Records of `queryset` read whole, as the record view shows them (a list's rows defer
    the text and more): what review mode reads its next record with, so it is read once."""
    return queryset.defer(None).select_related("best_artifact", "review", "review__reviewer", "run")


def record_detail(record_id: int) -> Record:
    return for_detail(Record.objects.all()).get(pk=record_id)


def record_matches(record: Record) -> list[Match]:
    return list(
        Match.objects.filter(record=record).select_related("artifact").order_by("-overlap", "id")
    )


@dataclass(frozen=True)
class AcrossKinds:
    """A record's coverage across kinds as the record view shows it, under today's policies."""

    coverage: float
    kinds: list[str]
    shared: int
    threshold: float  # in force now: the highest of the kinds'
    min_shared: int
    exceeds: bool


def record_across_kinds(record: Record) -> AcrossKinds | None:
    """The record's stored coverage across kinds (None when its matches are of one kind)."""
    mixed = record.mixed_coverage
    if not mixed:
        return None
    policies = Policies.load()
    threshold, min_shared = across_kinds_in_force(policies, mixed["kinds"])
    return AcrossKinds(
        coverage=mixed["coverage"],
        kinds=sorted(mixed["kinds"]),
        shared=mixed["shared"],
        threshold=threshold,
        min_shared=min_shared,
        exceeds=mixed_exceeds_stored(mixed, policies),
    )


def latest_own_verdict(user) -> Review | None:
    """`user`'s latest single verdict that is still the one in force on its record."""
    return (
        Review.objects.filter(reviewer=user, withdrawn_at=None, bulk=None, record__review=F("pk"))
        .order_by("-id")
        .first()
    )


def record_events(record: Record) -> list[Event]:
    """The record's own events, and the bulk verdicts (one event each) that judged it; each
    with `overrides_here`, the colleague's verdict on this record it overrode, if any."""
    bulks = list(
        Review.objects.filter(record=record, bulk__isnull=False).values_list("bulk_id", flat=True)
    )
    mine = Q(record=record)
    if bulks:
        mine |= Q(pk__in=bulks) | Q(type=Event.Type.REVIEW_BULK_UNDONE, data__bulk__in=bulks)
    events = list(Event.objects.filter(mine).select_related("actor", "artifact").order_by("-id"))
    for event in events:
        event.overrides_here = _overrides_of(event, record)
    return events


def _overrides_of(event: Event, record: Record) -> dict | None:
    """The colleague's verdict on `record` that `event` overrode: a single verdict's event
    names it; a bulk verdict's names one per record."""
    if event.type == Event.Type.REVIEW_BULK:
        return (event.data.get("overridden") or {}).get(str(record.pk))
    overrides = event.data.get("overrides")
    return overrides if isinstance(overrides, dict) else None
