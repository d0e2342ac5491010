"""The tuning page's estimates from the verdicts and its list of judged records a value would
flip: full page and htmx fragment, who may see them, a bound on queries."""

import pytest
from django.urls import reverse

from poimen import services

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def judged(desk_data, reviewer):
    services.review_record(record=desk_data["verbatim"], verdict="confirmed", actor=reviewer)
    services.review_record(record=desk_data["script"], verdict="false_positive", actor=reviewer)
    services.review_record(record=desk_data["near"], verdict="false_negative", actor=reviewer)
    return desk_data


def test_full_page_shows_the_estimates_table_and_lines(client, tuner, judged):
    client.force_login(tuner)
    html = client.get(reverse("tuning_kind", args=["skill"])).content.decode()
    assert "What the reviewers' verdicts say of each threshold" in html
    assert 'class="estimates"' in html and "(now)" in html
    assert 'class="estimate precision"' in html and 'class="estimate recall"' in html
    assert "recall is at most the figure shown" in html


def test_preview_fragment_lists_the_flips_with_links(client, tuner, judged):
    client.force_login(tuner)
    url = reverse("tuning_kind", args=["skill"]) + "?value=0.3"
    html = client.get(url, HTTP_HX_TARGET="preview", **HTMX).content.decode()
    assert "<!doctype html>" not in html
    assert "Judged records 0.3 would flip" in html
    # the near miss a reviewer marked a copy: 0.3 brings the filter into line with it
    assert "Into line with the reviewer" in html
    assert f'href="{reverse("record", args=[judged["near"].pk])}"' in html
    assert "At 0.3: precision" in html
    assert 'id="estimates" hx-swap-oob="true"' in html and "(previewed)" in html


def test_raising_the_threshold_lists_verdicts_it_would_go_against(client, tuner, judged):
    client.force_login(tuner)
    url = reverse("tuning_kind", args=["skill"]) + "?value=1"
    html = client.get(url, HTTP_HX_TARGET="preview", **HTMX).content.decode()
    assert "Against the reviewer" in html
    assert f'href="{reverse("record", args=[judged["verbatim"].pk])}"' in html


def test_no_verdicts_says_so(client, tuner, desk_data):
    client.force_login(tuner)
    html = client.get(reverse("tuning_kind", args=["skill"])).content.decode()
    assert "No skill record is judged yet" in html


def test_reviewers_cannot_see_the_estimates(client, reviewer, judged):
    client.force_login(reviewer)
    url = reverse("tuning_kind", args=["skill"]) + "?value=0.3"
    assert client.get(url, HTTP_HX_TARGET="preview", **HTMX).status_code == 403


def test_preview_with_estimates_and_flips_in_bounded_queries(
    client, tuner, judged, django_assert_max_num_queries
):
    client.force_login(tuner)
    url = reverse("tuning_kind", args=["skill"]) + "?value=0.3"
    client.get(url, HTTP_HX_TARGET="preview", **HTMX)  # tables built and kept
    with django_assert_max_num_queries(55):
        assert client.get(url, HTTP_HX_TARGET="preview", **HTMX).status_code == 200
