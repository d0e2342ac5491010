"""Bulk verdict and export in a real Chromium act on exactly the set shown: the filters applied
since the page loaded (which swap only the results), confirmed in words, undone as one unit."""

import re

import pytest
from playwright.sync_api import expect

from poimen.models import Event, Record

pytestmark = pytest.mark.e2e

REVIEWER_PASSWORD = "rita-reviews-things"


@pytest.fixture
def two_kinds(desk_data, make_artifact, make_record):
    """Besides the skill copies, three exclusions of a reference page."""
    page = make_artifact(kind="reference", name="tessera-guide", text="a reference page " * 40)
    for number in range(3):
        make_record(
            text=f"Reference copy {number}.",
            status="excluded",
            derived=True,
            best_overlap=0.9,
            best_artifact=page,
        )
    return desk_data


def test_bulk_verdict_acts_on_the_filters_applied_since_the_page_loaded(
    live_server, page, log_in, reviewer, two_kinds, browser_problems
):
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(live_server.url + "/exclusions/")
    results = page.locator("#results")
    expect(results).to_contain_text("5 records")

    page.get_by_label("Kind").select_option("reference")
    expect(results).to_contain_text("3 records")
    export = page.locator("[data-action='export']")
    expect(export).to_have_attribute("href", re.compile(r"kind=reference"))

    page.locator("[data-action='bulk']").click()
    expect(page.locator("[data-described]")).to_have_text("kind reference")
    expect(page.locator("main")).to_contain_text("3 records")
    page.get_by_label("Verdict").select_option("false_positive")
    page.get_by_role("button", name="Apply to 3 records").click()

    expect(page.locator(".messages")).to_contain_text("3 records marked")
    released = Record.objects.filter(status="evidence", review__isnull=False)
    assert {r.best_artifact.kind for r in released} == {"reference"} and released.count() == 3
    assert Event.objects.filter(type="review_bulk").count() == 1

    page.get_by_role("button", name="Undo all 3").click()
    expect(page.locator(".messages")).to_contain_text("Bulk verdict undone: 3 records")
    assert not Record.objects.filter(review__isnull=False).exists()
    assert Event.objects.filter(type="review_bulk_undone").count() == 1


def test_export_downloads_the_set_shown(
    live_server, page, log_in, reviewer, two_kinds, browser_problems
):
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(live_server.url + "/exclusions/")
    page.get_by_label("Kind").select_option("reference")
    expect(page.locator("#results")).to_contain_text("3 records")
    page.locator("[data-action='export']").click()
    expect(page.locator("main")).to_contain_text("3 records")
    with page.expect_download() as download:
        page.get_by_role("link", name=re.compile("Download JSONL")).click()
    lines = open(download.value.path(), encoding="utf-8").read().splitlines()
    assert len(lines) == 3


def test_a_second_filter_change_made_while_the_first_loads_is_not_dropped(
    live_server, page, log_in, reviewer, two_kinds, browser_problems
):
    from poimen.services import review_record

    review_record(
        record=Record.objects.filter(status="excluded").last(), verdict="confirmed", actor=reviewer
    )
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(live_server.url + "/exclusions/")
    # Hold the first request back so that the second change comes while it is in flight.
    page.route(
        "**/exclusions/?kind=reference*",
        lambda route: (page.wait_for_timeout(400), route.continue_()),
    )
    page.get_by_label("Kind").select_option("reference")
    page.get_by_label("Verdict").select_option("unreviewed")
    expect(page).to_have_url(re.compile(r"kind=reference.*verdict=unreviewed"))
    expect(page.locator("#results")).to_contain_text("2 records")
