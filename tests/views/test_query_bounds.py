"""Query-count bounds for what the team desk added: lists full of reviewed rows (reasons,
reviewers, n of N), review mode, a record judged in bulk, the audit log with bulk verdicts.
An N+1 is a bug: each bound holds whatever the number of rows."""

import pytest
from django.urls import reverse

from poimen.models import Record
from poimen.services import review_record, reviews_bulk
from tests.factories import HTMX_MAIN


@pytest.fixture
def judged(desk_data, make_record, reviewer):
    artifact = desk_data["verbatim"].best_artifact
    records = [
        make_record(
            text=f"copy {n}",
            status="excluded",
            derived=True,
            best_overlap=0.8 + n / 200,
            best_artifact=artifact,
        )
        for n in range(30)
    ]
    for record in records[:10]:
        review_record(record=record, verdict="false_positive", reason="quoted", actor=reviewer)
    reviews_bulk(
        records=Record.objects.filter(pk__in=[r.pk for r in records[10:20]]),
        verdict="confirmed",
        actor=reviewer,
        filters_described="kind skill",
    )
    return records


@pytest.mark.parametrize(
    "url",
    [
        "/exclusions/?sort=closeness",
        "/exclusions/?sort=artifact&verdict=false_positive",
        "/exclusions/?artifact=release-notes",
        "/audit/",
    ],
)
def test_lists_of_judged_rows_stay_bounded(logged_in, judged, django_assert_max_num_queries, url):
    logged_in.get(url)
    with django_assert_max_num_queries(18):
        logged_in.get(url)


def test_review_mode_and_a_bulk_judged_record_stay_bounded(
    logged_in, judged, django_assert_max_num_queries
):
    # Exact bounds, so one more query fails: review mode reads the policies once (with the kinds
    # the filter form offers), its record once (whole) and both counts of "n of N" in one query;
    # of its 13, four are the session, the user and the user's permissions.
    url = reverse("review") + "?list=exclusions&sort=closeness"
    logged_in.get(url)
    with django_assert_max_num_queries(13):
        logged_in.get(url, **HTMX_MAIN)
    record_url = reverse("record", args=[judged[15].pk]) + "?list=exclusions&sort=closeness"
    with django_assert_max_num_queries(15):
        logged_in.get(record_url)
