"""Claims: a reviewer takes the next batch of a filtered list, so that two reviewers never
judge the same records; a claim lapses after a while, or is released. An event each.

Race-safe on PostgreSQL: the candidates are locked with FOR UPDATE SKIP LOCKED, so two
reviewers claiming at once take disjoint rows instead of waiting on each other; behind that, a
unique constraint (one claim per record) and INSERT ... ON CONFLICT DO NOTHING keep a record
that slipped through (a claim committed between the snapshot and the lock) with its first
claimant. SQLite writes one transaction at a time, so the same code is correct there.
"""

from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from poimen.models import Claim, Event
from poimen.services.common import InputError
from poimen.team import team_rules


@dataclass(frozen=True)
class ClaimResult:
    record_ids: list[int]
    expires_at: datetime
    event: Event | None


def _unclaimed(records: QuerySet, now: datetime) -> QuerySet:
    held = Claim.objects.active(now).filter(record=OuterRef("pk"))
    return records.filter(review__isnull=True).exclude(Exists(held))


def records_claim(
    *, records: QuerySet, actor, size: int | None = None, filters_described: str = ""
) -> ClaimResult:
    """Claim for `actor` the first `size` (POIMEN_CLAIM_BATCH_SIZE) unreviewed records of
    `records` (a list's queryset, in its order) that no one holds; one `records_claimed` event
    listing them. Fewer when fewer are left; none is not an error (the result says so).
    The claims `actor` held on records judged since are let go (the event lists them)."""
    size = team_rules.claim_batch_size() if size is None else size
    if size < 1:
        raise InputError(f"a claim takes at least one record, not {size}")
    now = timezone.now()
    expires = now + team_rules.claim_duration()
    with transaction.atomic():
        # The reviewer's claims on records judged since are done with: the new batch is
        # what they hold from now on (review mode's "n of N" counts it alone).
        finished = Claim.objects.filter(reviewer=actor, record__review__isnull=False)
        finished = list(finished.values_list("record_id", flat=True))
        Claim.objects.filter(reviewer=actor, record_id__in=finished).delete()
        candidates = _unclaimed(records, now)
        if connection.features.has_select_for_update_skip_locked:
            candidates = candidates.select_for_update(skip_locked=True, of=("self",))
        ids = list(candidates.values_list("pk", flat=True)[:size])
        # Lapsed claims on these records give way (their rows are locked with the records).
        Claim.objects.filter(record_id__in=ids, expires_at__lte=now).delete()
        Claim.objects.bulk_create(
            [Claim(record_id=pk, reviewer=actor, claimed_at=now, expires_at=expires) for pk in ids],
            ignore_conflicts=True,
        )
        got = set(
            Claim.objects.filter(record_id__in=ids, reviewer=actor, claimed_at=now).values_list(
                "record_id", flat=True
            )
        )
        ids = [pk for pk in ids if pk in got]
        event = None
        if ids:
            event = Event.objects.log(
                Event.Type.RECORDS_CLAIMED,
                actor=actor,
                data={
                    "count": len(ids),
                    "records": ids,
                    "filters": filters_described,
                    "finished": finished,
                    "until": expires.isoformat(timespec="seconds"),
                },
            )
    return ClaimResult(record_ids=ids, expires_at=expires, event=event)


def claims_release(*, actor, record_ids: list[int] | None = None) -> int:
    """Give back `actor`'s claims (those on `record_ids`, or all), in force or lapsed; one
    `claims_released` event listing the records. Returns how many were released."""
    with transaction.atomic():
        mine = Claim.objects.select_for_update().filter(reviewer=actor)
        if record_ids is not None:
            mine = mine.filter(record_id__in=record_ids)
        released = sorted(mine.values_list("record_id", flat=True))
        if not released:
            return 0
        Claim.objects.filter(reviewer=actor, record_id__in=released).delete()
        Event.objects.log(
            Event.Type.CLAIMS_RELEASED,
            actor=actor,
            data={"count": len(released), "records": released},
        )
    return len(released)


# One statement takes the hold: a new row; or the row of a lapsed claim or hold, or of the
# reviewer's own hold (renewed); never a colleague's claim in force, nor one's own batch claim
# (which it leaves as it is). RETURNING says whether the row is the reviewer's hold now.
# (ON CONFLICT ... DO UPDATE ... WHERE and RETURNING: PostgreSQL, and SQLite 3.35 and later.)
_HOLD_SQL = """
    INSERT INTO {table} (record_id, reviewer_id, claimed_at, expires_at, hold)
    VALUES (%s, %s, %s, %s, %s)
    ON CONFLICT (record_id) DO UPDATE SET
        reviewer_id = excluded.reviewer_id, claimed_at = excluded.claimed_at,
        expires_at = excluded.expires_at, hold = excluded.hold
    WHERE {table}.expires_at <= %s
        OR ({table}.reviewer_id = excluded.reviewer_id AND {table}.hold)
    RETURNING reviewer_id
"""


def record_hold(*, record_id: int, actor) -> bool:
    """Hold record `record_id` for `actor` while review mode shows it to them (a short while,
    team_rules.hold_duration, renewed each time), letting go of the one they held before.
    False when someone else holds it (their claim or hold in force): review mode then serves
    another. A hold writes no event: it is a reading lock, gone when the reviewer moves on;
    the verdict that follows is the event. Two statements, whatever the race: a colleague's
    hold taken first wins the row (the unique record), and this one is told False."""
    now = timezone.now()
    expires = now + team_rules.hold_duration()
    Claim.objects.filter(reviewer=actor, hold=True).exclude(record_id=record_id).delete()
    with connection.cursor() as cursor:
        cursor.execute(
            _HOLD_SQL.format(table=Claim._meta.db_table),
            [record_id, actor.pk, now, expires, True, now],
        )
        taken = cursor.fetchone()
    if taken is not None:
        return True
    # Not taken: the claim in force may be the reviewer's own batch (rare: one query more).
    return Claim.objects.active(now).filter(record_id=record_id, reviewer=actor).exists()
