"""The record lists keep their shape while a reviewer works: the text column keeps its room
after verdicts (badges and undo buttons wrap in their own columns), rows stay short, and the
selected row is always on screen."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

REVIEWER_PASSWORD = "rita-reviews-things"


@pytest.fixture
def twelve_copies(desk_data, make_record):
    artifact = desk_data["verbatim"].best_artifact
    words = "a long line of release notes copied into a chat by someone in a hurry " * 4
    for number in range(12):
        make_record(
            text=f"Copy {number}: {words}",
            source="a-source-with-a-rather-long-name-that-goes-on",
            status="excluded",
            derived=True,
            best_overlap=0.99 - number / 100,
            best_artifact=artifact,
        )
    return desk_data


def box(locator):
    return locator.evaluate(
        "e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom, r.width, r.height]; }"
    )


def test_verdicts_leave_the_text_column_wide_and_the_rows_short(
    live_server, page, log_in, reviewer, twelve_copies, browser_problems
):
    page.set_viewport_size({"width": 1360, "height": 600})
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(live_server.url + "/exclusions/?sort=overlap")
    rows = page.locator("#results tr[data-row]")
    expect(rows).to_have_count(14)
    page.keyboard.press("j")
    for number in range(8):
        key = "c" if number % 2 else "f"
        page.keyboard.press(key)
        expect(rows.nth(number)).to_contain_text("confirmed" if key == "c" else "false positive")
        current = page.locator("tr[data-row].is-current")
        expect(current).to_have_count(1)
        top, bottom, _, _ = box(current)
        assert -1 <= top and bottom <= 601, f"the selected row is off screen ({top}, {bottom})"
    for number in range(8):
        _, _, width, height = box(rows.nth(number).locator("td.snippet"))
        assert width >= 300, f"row {number}: the text column shrank to {width:.0f} px"
        assert height <= 220, f"row {number}: the row grew to {height:.0f} px"
