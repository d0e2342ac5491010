"""A bulk verdict on a random sample of the filtered set (issue 24): the seed in the URL makes
the sample confirmed the sample judged; another seed draws another."""

import pytest
from django.urls import reverse

from poimen.models import Event, Record
from poimen.selectors import ListFilters, bulk_sample, exclusion_list

pytestmark = pytest.mark.django_db


def test_the_same_seed_draws_the_same_sample_and_another_seed_another(borderline):
    borderline(20)
    listed = exclusion_list(filters=ListFilters())
    first = set(bulk_sample(listed, size=5, seed=7).values_list("pk", flat=True))
    assert len(first) == 5 and first <= set(listed.values_list("pk", flat=True))
    assert first == set(bulk_sample(listed, size=5, seed=7).values_list("pk", flat=True))
    others = [
        set(bulk_sample(listed, size=5, seed=seed).values_list("pk", flat=True))
        for seed in range(8, 13)
    ]
    assert any(sample != first for sample in others)


def test_a_bulk_verdict_on_a_sample_judges_exactly_the_sample_shown(logged_in, borderline):
    borderline(12)
    url = reverse("exclusions_bulk") + "?sample=4&seed=99"
    page = logged_in.get(url)
    assert page.context["count"] == 4 and page.context["sample"]["of"] >= 12
    html = page.content.decode()
    assert "A random sample of <strong>4</strong>" in html
    assert 'action="/exclusions/bulk/?sample=4&amp;seed=99"' in html
    shown = set(
        bulk_sample(exclusion_list(filters=ListFilters()), size=4, seed=99).values_list(
            "pk", flat=True
        )
    )
    response = logged_in.post(url, {"verdict": "confirmed", "expected": 4})
    assert response.status_code == 302
    judged = set(Record.objects.filter(review__isnull=False).values_list("pk", flat=True))
    assert judged == shown
    event = Event.objects.get(type="review_bulk")
    assert set(event.data["records"]) == shown
    assert "a random sample of 4" in event.data["filters"]


def test_the_whole_set_page_offers_samples(logged_in, borderline):
    borderline(30)
    html = logged_in.get(reverse("exclusions_bulk")).content.decode()
    assert "Or judge a random sample of them:" in html and "sample=25" in html
