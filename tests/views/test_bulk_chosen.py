"""A bulk verdict on records chosen one by one from the filtered set: the bulk page offers the
set's first records with a checkbox each; the chosen ids travel in the address, and only those
still in the filtered set are judged."""

import pytest
from django.urls import reverse

from poimen.models import Event, Record

pytestmark = pytest.mark.django_db


def test_the_bulk_page_offers_the_filtered_records_to_choose(logged_in, borderline):
    made = borderline(3)
    html = logged_in.get(reverse("exclusions_bulk"), {"kind": "skill", "choose": 1}).content
    html = html.decode()
    assert "data-choose" in html and '<input type="hidden" name="kind" value="skill">' in html
    for record in made:
        assert f'name="chosen" value="{record.pk}"' in html


def test_a_bulk_verdict_judges_only_the_chosen_records(logged_in, borderline):
    made = borderline(6)
    chosen = [made[1].pk, made[4].pk]
    url = reverse("exclusions_bulk") + f"?kind=skill&chosen={chosen[0]}&chosen={chosen[1]}"
    page = logged_in.get(url)
    assert page.context["count"] == 2
    html = page.content.decode()
    assert "data-chosen" in html
    assert f"kind=skill&amp;chosen={chosen[0]}&amp;chosen={chosen[1]}" in html  # the form's
    response = logged_in.post(url, {"verdict": "confirmed", "expected": 2})
    assert response.status_code == 302
    judged = set(Record.objects.filter(review__isnull=False).values_list("pk", flat=True))
    assert judged == set(chosen)
    event = Event.objects.get(type=Event.Type.REVIEW_BULK)
    assert "2 chosen records" in event.data["filters"]


def test_a_chosen_record_no_longer_in_the_set_is_not_judged(logged_in, borderline, desk_data):
    made = borderline(2)
    outside = desk_data["near"]  # a near miss: never in the exclusions
    url = reverse("exclusions_bulk") + f"?chosen={made[0].pk}&chosen={outside.pk}&chosen=x"
    page = logged_in.get(url)
    assert page.context["count"] == 1
    assert "1 more you chose is no longer in the set" in page.content.decode()
    logged_in.post(url, {"verdict": "confirmed", "expected": 1})
    assert list(Record.objects.filter(review__isnull=False).values_list("pk", flat=True)) == [
        made[0].pk
    ]
