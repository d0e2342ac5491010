"""Out-of-range input is a form error on the page, never a 500: the far end of the calendar,
huge ids and numbers, cursors that do not parse, on every page that takes them."""

import pytest
from django.urls import reverse


@pytest.fixture
def logged_in(client, tuner):
    client.force_login(tuner)
    return client


FILTER_PAGES = ["exclusions", "near_misses", "export", "exclusions_bulk", "audit"]
NASTY = [
    "date_to=9999-12-31",
    "date_from=9999-12-31",
    "date_from=0001-01-01&date_to=0001-01-01",
    "date_to=1969-12-31",
    "overlap_min=1e400&overlap_max=-1e400",
    "overlap_min=nan",
    f"artifact={2**64}",
    f"run={2**64}",
    "after=o1e400_99999999999999999999",
    "after=t99999999999999999999999_1",
    "sort=sideways",
]


@pytest.mark.parametrize("name", FILTER_PAGES)
@pytest.mark.parametrize("query", NASTY)
def test_out_of_range_filters_are_form_errors(logged_in, desk_data, name, query):
    response = logged_in.get(f"{reverse(name)}?{query}")
    assert response.status_code == 200, (name, query)
    htmx = logged_in.get(f"{reverse(name)}?{query}", HTTP_HX_REQUEST="true")
    assert htmx.status_code == 200, (name, query)


@pytest.mark.parametrize("name", FILTER_PAGES)
def test_the_last_day_of_the_calendar_is_named_as_the_problem(logged_in, desk_data, name):
    html = logged_in.get(f"{reverse(name)}?date_to=9999-12-31").content.decode()
    assert "date_to (a day until 2999-12-31 at the latest)" in html, name


def test_a_bulk_verdict_is_refused_while_a_day_is_out_of_range(logged_in, desk_data):
    url = reverse("exclusions_bulk") + "?date_to=9999-12-31"
    assert logged_in.post(url, {"verdict": "confirmed", "expected": 2}).status_code == 400


@pytest.mark.parametrize(
    "query", ["value=1e400", "value=nan", "value=-0", "value=0.5e-400", f"value={'9' * 500}"]
)
def test_an_out_of_range_threshold_preview_is_a_form_error(logged_in, desk_data, query):
    assert logged_in.get(f"{reverse('tuning_kind', args=['skill'])}?{query}").status_code == 200
