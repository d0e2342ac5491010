"""Holds (services.record_hold): the record review mode shows a reviewer is theirs a short
while, so no one else is served it; one hold at a time, let go on moving on, lapsing."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from poimen.models import Claim, Event, Record
from poimen.services import record_hold, records_claim, review_record

pytestmark = pytest.mark.django_db


def test_a_held_record_is_refused_to_a_colleague(borderline, reviewer, make_reviewer):
    sam = make_reviewer("sam")
    record = borderline(1)[0]
    assert record_hold(record_id=record.pk, actor=reviewer)
    assert not record_hold(record_id=record.pk, actor=sam)
    assert record_hold(record_id=record.pk, actor=reviewer)  # shown again: still hers
    held = Claim.objects.get(record=record)
    assert held.hold and held.reviewer == reviewer
    assert not Event.objects.filter(type="records_claimed").exists()  # a reading lock only


def test_moving_on_lets_the_previous_hold_go(borderline, reviewer, make_reviewer):
    sam = make_reviewer("sam")
    first, second = borderline(2)
    record_hold(record_id=first.pk, actor=reviewer)
    record_hold(record_id=second.pk, actor=reviewer)
    assert list(Claim.objects.values_list("record_id", flat=True)) == [second.pk]
    assert record_hold(record_id=first.pk, actor=sam)


def test_a_lapsed_hold_gives_way(borderline, reviewer, make_reviewer, settings):
    sam = make_reviewer("sam")
    record = borderline(1)[0]
    record_hold(record_id=record.pk, actor=reviewer)
    Claim.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert record_hold(record_id=record.pk, actor=sam)


def test_a_hold_never_takes_a_colleagues_claimed_batch(borderline, reviewer, make_reviewer):
    sam = make_reviewer("sam")
    record = borderline(1)[0]
    records_claim(records=Record.objects.filter(pk=record.pk), actor=sam)
    assert not record_hold(record_id=record.pk, actor=reviewer)
    assert not Claim.objects.get(record=record).hold


def test_two_reviewers_in_review_mode_are_served_different_records(
    borderline, reviewer, make_reviewer
):
    sam = make_reviewer("sam")
    borderline(3)
    rita_client, sam_client = Client(), Client()
    rita_client.force_login(reviewer)
    sam_client.force_login(sam)
    url = reverse("review") + "?list=exclusions&sort=closeness"
    rita_sees = rita_client.get(url).context["record"].pk
    sam_sees = sam_client.get(url).context["record"].pk
    assert rita_sees != sam_sees
    # Rita judges hers and goes on: the next she is served is neither.
    review_record(
        record=rita_client.get(url).context["record"], verdict="confirmed", actor=reviewer
    )
    assert rita_client.get(url).context["record"].pk not in {rita_sees, sam_sees}
