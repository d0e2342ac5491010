"""Claims (poimen/services/claims.py): the next batch of a filtered list for one reviewer,
disjoint from everyone else's, lapsing after a while, released by hand; an event each."""

import threading
from datetime import timedelta

import pytest
from django.db import connection, transaction

from poimen.models import Claim, Event, Record
from poimen.selectors import ListFilters, exclusion_list, my_claims, review_pool
from poimen.services import InputError, claims_release, records_claim, review_record


def listed(**filters):
    return exclusion_list(filters=ListFilters(sort="closeness", **filters))


def test_a_claim_takes_the_next_batch_in_the_lists_order_and_logs_it(
    settings, borderline, reviewer
):
    settings.POIMEN_CLAIM_BATCH_SIZE = 3
    records = borderline(5)
    result = records_claim(records=listed(), actor=reviewer, filters_described="kind skill")
    assert result.record_ids == [r.pk for r in records[:3]]  # same closeness: by id
    assert set(Claim.objects.values_list("record_id", flat=True)) == set(result.record_ids)
    event = Event.objects.get(type="records_claimed")
    assert event.actor == reviewer and event.data["records"] == result.record_ids
    assert event.data["count"] == 3 and event.data["filters"] == "kind skill"
    assert my_claims(reviewer).count == 3 and my_claims(reviewer).unreviewed == 3


def test_two_reviewers_get_disjoint_batches_and_judged_records_are_not_claimed(
    borderline, reviewer, make_reviewer
):
    sam = make_reviewer("sam")
    records = borderline(7)
    review_record(record=records[0], verdict="confirmed", actor=reviewer)
    first = records_claim(records=listed(), actor=reviewer, size=3)
    second = records_claim(records=listed(), actor=sam, size=3)
    assert records[0].pk not in first.record_ids + second.record_ids
    assert not set(first.record_ids) & set(second.record_ids)
    assert len(first.record_ids) == len(second.record_ids) == 3
    # What is left is the rest of the list: one of the 7 (the verbatim copy etc. were judged
    # or claimed or are further down the list).
    third = records_claim(records=listed(), actor=sam, size=100)
    assert not set(third.record_ids) & set(first.record_ids + second.record_ids)


def test_a_claim_follows_the_filters(borderline, desk_data, reviewer):
    borderline(2)
    result = records_claim(records=listed(source="desk-tests"), actor=reviewer, size=10)
    claimed = Record.objects.filter(pk__in=result.record_ids)
    assert claimed.count() >= 1 and set(claimed.values_list("source", flat=True)) == {"desk-tests"}


def test_nothing_left_is_no_claim_and_no_event(reviewer, desk_data):
    for record in listed():
        review_record(record=record, verdict="confirmed", actor=reviewer)
    result = records_claim(records=listed(), actor=reviewer)
    assert result.record_ids == [] and result.event is None
    assert not Event.objects.filter(type="records_claimed").exists()


def test_a_lapsed_claim_returns_its_records_to_the_pool(borderline, reviewer, make_reviewer):
    sam = make_reviewer("sam")
    borderline(2)
    mine = records_claim(records=listed(), actor=reviewer, size=2)
    assert records_claim(records=listed(overlap_max=0.85), actor=sam).record_ids == []
    Claim.objects.update(expires_at=Claim.objects.first().claimed_at - timedelta(seconds=1))
    assert my_claims(reviewer).count == 0
    theirs = records_claim(records=listed(overlap_max=0.85), actor=sam)
    assert set(theirs.record_ids) == set(mine.record_ids)
    assert set(Claim.objects.values_list("reviewer", flat=True)) == {sam.pk}


def test_the_claim_lasts_as_long_as_the_setting_says(settings, borderline, reviewer):
    settings.POIMEN_CLAIM_MINUTES = 7
    borderline(1)
    result = records_claim(records=listed(), actor=reviewer, size=1)
    claim = Claim.objects.get()
    assert claim.expires_at - claim.claimed_at == timedelta(minutes=7)
    assert result.expires_at == claim.expires_at


def test_review_mode_serves_no_record_another_reviewer_holds(borderline, reviewer, make_reviewer):
    sam = make_reviewer("sam")
    borderline(4)
    theirs = records_claim(records=listed(), actor=sam, size=2).record_ids
    mine = records_claim(records=listed(), actor=reviewer, size=1).record_ids
    pool = set(review_pool(listed(), reviewer).values_list("pk", flat=True))
    assert not pool & set(theirs) and set(mine) <= pool
    batch = set(review_pool(listed(), reviewer, mine_only=True).values_list("pk", flat=True))
    assert batch == set(mine)


def test_release_gives_back_every_claim_with_one_event(borderline, reviewer, make_reviewer):
    sam = make_reviewer("sam")
    borderline(4)
    mine = records_claim(records=listed(), actor=reviewer, size=2).record_ids
    records_claim(records=listed(), actor=sam, size=2)
    assert claims_release(actor=reviewer) == 2
    assert set(Claim.objects.values_list("reviewer", flat=True)) == {sam.pk}
    event = Event.objects.get(type="claims_released")
    assert event.actor == reviewer and event.data["records"] == sorted(mine)
    assert claims_release(actor=reviewer) == 0
    assert Event.objects.filter(type="claims_released").count() == 1


def test_a_claim_of_no_records_is_refused(reviewer, desk_data):
    with pytest.raises(InputError, match="at least one record"):
        records_claim(records=listed(), actor=reviewer, size=0)


def test_a_record_claims_only_once_whatever_the_code_above_it_does(borderline, reviewer):
    from django.db import IntegrityError

    record = borderline(1)[0]
    records_claim(records=listed(), actor=reviewer, size=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        Claim.objects.create(
            record=record, reviewer=reviewer, claimed_at=record.created_at,
            expires_at=record.created_at,
        )  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_claims_racing_on_postgresql_take_disjoint_rows_without_waiting(
    borderline, reviewer, make_reviewer
):
    """One reviewer's claim is still open (its transaction not committed) when another
    claims: SKIP LOCKED passes over the rows it holds instead of waiting for them."""
    if connection.vendor != "postgresql":
        pytest.skip("FOR UPDATE SKIP LOCKED is PostgreSQL's; SQLite writes one at a time")
    sam = make_reviewer("sam")
    borderline(6)
    holding, done = threading.Event(), threading.Event()
    first = {}

    def claim_and_hold():
        try:
            with transaction.atomic():
                first["ids"] = records_claim(records=listed(), actor=reviewer, size=3).record_ids
                holding.set()
                done.wait(timeout=30)
        finally:
            connection.close()

    thread = threading.Thread(target=claim_and_hold)
    thread.start()
    assert holding.wait(timeout=30)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '3s'")  # waiting would fail the test, not hang
        second = records_claim(records=listed(), actor=sam, size=3).record_ids
    finally:
        done.set()
        thread.join(timeout=30)
    assert len(first["ids"]) == len(second) == 3
    assert not set(first["ids"]) & set(second)
    assert Claim.objects.count() == 6


def test_a_new_claim_lets_go_of_the_records_judged_in_the_last(borderline, reviewer):
    records = borderline(4)
    first = records_claim(records=listed(), actor=reviewer, size=2).record_ids
    review_record(record=records[0], verdict="confirmed", actor=reviewer)
    second = records_claim(records=listed(), actor=reviewer, size=1)
    held = set(Claim.objects.filter(reviewer=reviewer).values_list("record_id", flat=True))
    assert held == {first[1], *second.record_ids}
    assert second.event.data["finished"] == [records[0].pk]
