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


# Exact counts, so that one query more fails. A full list page reads the session, the user,
# its own and its groups' permissions (4); the kinds and the runs the filter form offers and
# the policies (once a request); the exact counts (records and unreviewed, one aggregate: the
# exclusions' "n of N reviewed" too); the page of rows with their artifacts, reviews and
# reviewers (one query); the claims on them; the artifact names the filter completes and the
# reviewer's saved filters: 12; an artifact filter adds the artifact's ids (13). The results
# alone (a filter changed) ask neither the names nor the saved filters.
RESULTS = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "results"}


@pytest.mark.parametrize(
    ("url", "headers", "queries"),
    [
        ("/exclusions/?sort=closeness", {}, 12),
        ("/exclusions/?sort=closeness", RESULTS, 10),
        ("/exclusions/?sort=artifact&verdict=false_positive", {}, 12),
        ("/exclusions/?artifact=release-notes", {}, 13),
        ("/near-misses/?sort=closeness", {}, 12),
        ("/near-misses/?sort=closeness", RESULTS, 10),
        ("/audit/", {}, 9),
    ],
)
def test_lists_of_judged_rows_stay_bounded(
    logged_in, judged, django_assert_num_queries, url, headers, queries
):
    logged_in.get(url)
    with django_assert_num_queries(queries):
        logged_in.get(url, **headers)


def test_review_mode_and_a_bulk_judged_record_stay_bounded(
    logged_in, judged, django_assert_max_num_queries
):
    # Exact bounds, so one more query fails: review mode reads the policies once (with the kinds
    # the filter form offers), its record once (whole) and both counts of "n of N" in one query,
    # and holds the record it shows in two (the previous hold let go, the new one taken);
    # of its 15, four are the session, the user and the user's permissions.
    url = reverse("review") + "?list=exclusions&sort=closeness"
    logged_in.get(url)
    with django_assert_max_num_queries(15):
        logged_in.get(url, **HTMX_MAIN)
    record_url = reverse("record", args=[judged[15].pk]) + "?list=exclusions&sort=closeness"
    with django_assert_max_num_queries(15):
        logged_in.get(record_url)
