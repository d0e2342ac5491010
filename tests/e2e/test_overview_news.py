"""The overview in a real Chromium (issue 24): it opens on what changed since the reviewer
last looked and what waits for them, draws exclusions over time by kind (its lines stroked),
shows the checks' last results; axe-core clean, no sideways scroll at 1360 and 390 px."""

import pytest
from playwright.sync_api import expect

from poimen.models import Event
from poimen.services import review_record

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("width", [1360, 390])
def test_the_overview_opens_on_what_changed_and_what_waits(
    live_server, axe_page, axe_violations, reviewer, make_reviewer, desk_data, width
):
    Event.objects.log("derived_verified", data={"ok": True, "checked": 4, "offenders": 0})
    page = axe_page
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("User name").fill("rita")
    page.get_by_label("Password").fill("rita-reviews-things")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")

    changed = page.locator("[data-changes]")
    expect(changed).to_contain_text("In the past week")
    expect(changed).to_contain_text("records the filter excluded or redacted")
    expect(page.locator("[data-waiting]")).to_contain_text("exclusions not reviewed")
    expect(page.locator("[data-check='derived_verified']")).to_contain_text("passed")
    expect(page.locator("[data-check='audit_verified']")).to_contain_text("never run")
    line = page.locator("polyline.kind-line[data-kind='skill']")
    expect(line).to_have_count(1)
    assert line.evaluate("e => getComputedStyle(e).stroke") not in ("none", "")
    assert line.evaluate("e => getComputedStyle(e).fill") == "none"
    assert axe_violations(page) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width + 1

    sam = make_reviewer("sam")
    review_record(record=desk_data["verbatim"], verdict="confirmed", actor=sam)
    page.reload()
    expect(changed).to_contain_text("Since you last looked")
    expect(changed).to_contain_text("1 verdict by colleagues")
