"""A redaction in a real Chromium: the cut struck through in the record pane, the evidence text
one click away, a false positive and its undo by keyboard."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

REVIEWER_PASSWORD = "rita-reviews-things"


def test_a_redaction_shows_its_cut_and_its_evidence_text_and_can_be_released_and_restored(
    live_server, page, log_in, reviewer, desk_data_redacted, browser_problems, screenshot
):
    log_in("rita", REVIEWER_PASSWORD)
    pasted = desk_data_redacted["pasted"]
    page.goto(f"{live_server.url}/records/{pasted.pk}/")
    cut = page.locator("[data-pane='record'] del.cut")
    expect(cut).to_have_count(1)
    expect(cut).to_have_css("text-decoration-line", "line-through")
    evidence = page.locator("[data-pane='evidence']")
    expect(evidence).to_be_hidden()
    page.get_by_text("Evidence text: what a memory system gets").click()
    expect(evidence).to_be_visible()
    expect(evidence).to_contain_text(re.compile(r"\[… poimen: \d+ characters cut …\]"))
    screenshot("record-redacted")

    page.keyboard.press("f")
    expect(page.locator("h1 .badge.evidence")).to_be_visible()
    page.keyboard.press("u")
    expect(page.locator("h1 .badge.redacted")).to_be_visible()
