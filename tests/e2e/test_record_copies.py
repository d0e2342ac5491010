"""A record stitched from a skill and a reference page, in a real Chromium: the record view
lists both artifacts with where each one's passages lie along the record, and opens either
side by side."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_every_artifact_of_a_record_decided_across_kinds_is_shown(
    live_server, page, log_in, reviewer, pasted_across_kinds, browser_problems, screenshot
):
    log_in("rita", "rita-reviews-things")
    page.goto(f"{live_server.url}/records/{pasted_across_kinds.pk}/")
    copies = page.locator("[data-copies] li")
    expect(copies).to_have_count(2)
    for name in ("git-commit-message", "celery-task-retries"):
        bar = page.locator(f"[data-copy='{name}'] .copy-bar-passage").first
        expect(bar).to_be_visible()
        assert bar.bounding_box()["width"] > 20  # a passage, not a hairline
    shown = page.locator("[data-copy]", has_text="(shown)").get_attribute("data-copy")
    hidden = ({"git-commit-message", "celery-task-retries"} - {shown}).pop()
    page.locator(f"[data-copy='{hidden}'] a").click()
    expect(page.locator(f"[data-copy='{hidden}']")).to_contain_text("(shown)")
    expect(page.locator(".pane-head h3").nth(1)).to_have_text(hidden)
    screenshot("record-copies")
