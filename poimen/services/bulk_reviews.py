"""A bulk verdict: one verdict over a filtered set, written as one unit and undone as one.

It makes a review per record (each record's verdict in force, as one verdict would) and one
event for the whole set, listing its records and saying which filters chose them; its undo
is one event too, listing the records it gave back their previous verdict.

A colleague's verdict in force on one of the records is overridden, never silently: the desk
says so and asks again before it applies (`overrides_expected`: how many the reviewer was
told of), and the event names them, per record, as a single verdict's event does."""

from collections import Counter

from django.db import transaction
from django.utils import timezone

from poimen.models import Event, Record, Review
from poimen.services.common import InputError, status_in_force
from poimen.services.reviews import _verdict
from poimen.team.verdicts import overridden, verdict_misfit

CHUNK = 1000
# What `verdicts.overridden` reads of a review in force.
REVIEW_FIELDS = ("verdict", "created_at", "record_id", "reviewer_id", "reviewer__username")


def _locked_chunk(ids: list[int]) -> list[Record]:
    return list(
        Record.objects.select_for_update(of=("self",))
        .select_related("best_artifact")
        .filter(pk__in=ids)
        .order_by("pk")
    )


class OverridesChanged(InputError):
    """The colleagues' verdicts among the records are not those the reviewer was told of."""


def _colleague_verdicts_locked(ids: list[int], actor) -> dict[int, dict]:
    """Per record of `ids` (locked here, so no verdict lands between this and the bulk's),
    the colleague's verdict in force that a verdict by `actor` overrides."""
    found = {}
    for start in range(0, len(ids), CHUNK):
        chunk = (
            Record.objects.select_for_update(of=("self",))
            .filter(pk__in=ids[start : start + CHUNK], review__isnull=False)
            .select_related("review__reviewer")
            .only("pk", "review", *(f"review__{f}" for f in REVIEW_FIELDS))
        )
        for record in chunk:
            entry = overridden(record.review, actor)
            if entry:
                found[record.pk] = entry
    return found


def _overrides_described(entries) -> str:
    """ "6 colleague verdicts: sam's confirmed (4), ola's false positive (2)"."""
    counted = Counter((e["reviewer"], e["verdict"].replace("_", " ")) for e in entries)
    total = sum(counted.values())
    parts = ", ".join(f"{who}'s {verdict} ({n})" for (who, verdict), n in counted.most_common())
    return f"{total} colleague verdict{'s' if total != 1 else ''}: {parts}"


def reviews_bulk(
    *,
    records,
    verdict: str,
    actor,
    note: str = "",
    filters_described: str = "",
    overrides_expected: int | None = None,
) -> Event:
    """The same verdict on every record of a queryset, in one transaction; the bulk's event.
    If the verdict does not fit one of them, none is judged. With `overrides_expected`,
    none is judged either unless exactly that many carry a colleague's verdict
    (OverridesChanged)."""
    verdict = _verdict(verdict)
    with transaction.atomic():
        ids = list(records.order_by("pk").values_list("pk", flat=True))
        colleagues = _colleague_verdicts_locked(ids, actor)
        if overrides_expected is not None and len(colleagues) != overrides_expected:
            raise OverridesChanged(
                f"{len(colleagues):,} of these records now carry a colleague's verdict, not "
                f"{overrides_expected:,}; nothing was judged"
            )
        data = {
            "verdict": verdict.value,
            "note": note,
            "filters": filters_described,
            "count": len(ids),
            "records": ids,
        }
        if colleagues:
            data["overrides"] = _overrides_described(colleagues.values())
            data["overridden"] = {str(pk): entry for pk, entry in colleagues.items()}
        event = Event.objects.log(Event.Type.REVIEW_BULK, actor=actor, data=data)
        for start in range(0, len(ids), CHUNK):
            chunk = _locked_chunk(ids[start : start + CHUNK])
            for record in chunk:
                misfit = verdict_misfit(record, verdict)
                if misfit:
                    raise InputError(f"record #{record.pk}: {misfit}; nothing was judged")
            reviews = Review.objects.bulk_create(
                [
                    Review(record=r, verdict=verdict, note=note, reviewer=actor, bulk=event)
                    for r in chunk
                ]
            )
            for record, review in zip(chunk, reviews, strict=True):
                record.review = review
                record.status = review.status_for(record)
            Record.objects.bulk_update(chunk, ["review", "status"])
    return event


def bulk_undone(event: Event) -> Event | None:
    """The undo of bulk verdict `event`, if it was undone."""
    return (
        Event.objects.filter(type=Event.Type.REVIEW_BULK_UNDONE, data__bulk=event.pk)
        .order_by("id")
        .first()
    )


def reviews_bulk_undo(*, event: Event, actor) -> Event:
    """Undo a bulk verdict as one unit: every record whose verdict in force is still the
    bulk's gets back the verdict it replaced (or the filter's decision); a record judged again
    since keeps that later verdict. One event, listing the records given back."""
    if event.type != Event.Type.REVIEW_BULK:
        raise InputError(f"event #{event.pk} is not a bulk verdict")
    with transaction.atomic():
        # The bulk's own event row, locked: two undos of one bulk run one after the other.
        Event.objects.select_for_update().get(pk=event.pk)
        if bulk_undone(event) is not None:
            raise InputError(f"bulk verdict #{event.pk} was undone already")
        now = timezone.now()
        restored_ids: list[int] = []
        kept = 0
        reviews = Review.objects.filter(bulk=event, withdrawn_at=None).order_by("pk")
        review_ids = list(reviews.values_list("pk", "record_id"))
        for start in range(0, len(review_ids), CHUNK):
            pairs = dict(review_ids[start : start + CHUNK])
            chunk = [r for r in _locked_chunk(list(pairs.values())) if r.review_id in pairs]
            kept += len(pairs) - len(chunk)
            earlier = _replaced_reviews({r.pk: r.review_id for r in chunk})
            for record in chunk:
                record.review = earlier.get(record.pk)
                record.status = status_in_force(record)
            Record.objects.bulk_update(chunk, ["review", "status"])
            Review.objects.filter(pk__in=list(pairs)).update(withdrawn_at=now)
            restored_ids.extend(r.pk for r in chunk)
        return Event.objects.log(
            Event.Type.REVIEW_BULK_UNDONE,
            actor=actor,
            data={
                "bulk": event.pk,
                "verdict": event.data.get("verdict"),
                "filters": event.data.get("filters", ""),
                "count": len(restored_ids),
                "kept": kept,
                "records": restored_ids,
            },
        )


def _replaced_reviews(bulk_review_of: dict[int, int]) -> dict[int, Review]:
    """Per record (id -> its bulk review's id), the latest earlier review not withdrawn: the
    verdict the bulk replaced."""
    earlier = {}
    rows = Review.objects.filter(record_id__in=list(bulk_review_of), withdrawn_at=None)
    for review in rows.order_by("record_id", "-pk"):
        if review.pk < bulk_review_of[review.record_id]:
            earlier.setdefault(review.record_id, review)
    return earlier
