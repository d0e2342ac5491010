"""A bulk verdict on records chosen one by one, in a real Chromium: from the bulk page of a
filtered list, tick three records, confirm, and exactly those three are judged."""

import pytest
from playwright.sync_api import expect

from poimen.models import Record

pytestmark = pytest.mark.e2e


def test_a_bulk_verdict_on_records_chosen_one_by_one(
    live_server, page, log_in, reviewer, borderline, browser_problems
):
    made = borderline(8)
    log_in("rita", "rita-reviews-things")
    page.goto(f"{live_server.url}/exclusions/bulk/?kind=skill")
    page.get_by_role("link", name="Or choose records one by one").click()
    choices = page.locator("[data-choose] input[name='chosen']")
    expect(choices.first).to_be_visible()
    chosen = [made[0].pk, made[3].pk, made[5].pk]
    for pk in chosen:
        page.locator(f"[data-choose] input[value='{pk}']").check()
    page.get_by_role("button", name="Judge the chosen records").click()
    expect(page.locator("[data-chosen]")).to_contain_text("3 chosen records")
    assert "kind=skill" in page.url
    page.get_by_role("button", name="Apply to 3 records").click()
    expect(page.locator(".messages")).to_contain_text("3 records marked")
    judged = Record.objects.filter(review__isnull=False).values_list("pk", flat=True)
    assert sorted(judged) == sorted(chosen)
