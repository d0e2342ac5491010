"""A bulk verdict over a colleague's verdict in a real Chromium (issue 24): the bulk page says
how many records carry one and whose, applying asks once more, and the record's history then
says whose verdict the bulk overrode; axe-core on the question."""

import pytest
from playwright.sync_api import expect

from poimen.models import Record
from poimen.services import review_record

pytestmark = pytest.mark.e2e


def test_a_bulk_over_a_colleague_verdict_says_whose_and_asks_once_more(
    live_server, axe_page, axe_violations, reviewer, make_reviewer, desk_data
):
    sam = make_reviewer("sam")
    review_record(record=desk_data["verbatim"], verdict="confirmed", actor=sam)
    page = axe_page
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("User name").fill("rita")
    page.get_by_label("Password").fill("rita-reviews-things")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")

    page.goto(f"{live_server.url}/exclusions/bulk/?kind=skill")
    told = page.locator("[data-colleague-verdicts]")
    expect(told).to_contain_text("1 of these 2 records carries a colleague's verdict")
    expect(told).to_contain_text("sam: confirmed on 1 record")
    page.get_by_label("Verdict").select_option("false_positive")
    page.get_by_role("button", name="Apply to 2 records").click()

    # Nothing applied yet: the question comes once more, as an alert.
    expect(page.get_by_role("alert")).to_contain_text("Apply anyway?")
    assert not Record.objects.filter(review__verdict="false_positive").exists()
    assert axe_violations(page) == []
    page.get_by_role("button", name="Override 1 colleague verdict and apply to 2 records").click()
    expect(page.locator(".messages")).to_contain_text("2 records marked")
    assert Record.objects.filter(review__verdict="false_positive").count() == 2

    page.goto(f"{live_server.url}/records/{desk_data['verbatim'].pk}/")
    expect(page.locator("[data-overrides]")).to_contain_text("overriding sam's verdict, confirmed")


def test_a_bulk_verdict_on_a_random_sample(live_server, page, log_in, reviewer, borderline):
    borderline(30)
    log_in("rita", "rita-reviews-things")
    page.goto(f"{live_server.url}/exclusions/bulk/")
    page.locator("[data-sample]").get_by_role("link", name="10", exact=True).click()
    expect(page.locator("[data-sample]")).to_contain_text("A random sample of 10 of the")
    seed = page.locator("[data-seed]").inner_text()
    assert f"seed={seed}" in page.url  # shown on the page, kept in its address
    page.get_by_role("button", name="Apply to 10 records").click()
    expect(page.locator(".messages")).to_contain_text("10 records marked")
    assert Record.objects.filter(review__isnull=False).count() == 10
