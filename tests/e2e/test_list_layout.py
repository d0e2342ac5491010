"""The record lists keep their shape while a reviewer works: the text column keeps its room
after verdicts (badges and undo buttons wrap in their own columns), rows stay short, and the
selected row is always on screen. On a phone (390 px) a row is a card, its text the width of
the screen above the controls, and no page scrolls sideways."""

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
        # The row is scrolled into view once it is current, a frame or so after the swap.
        expect(current).to_be_in_viewport(ratio=0.99)
    for number in range(8):
        _, _, width, height = box(rows.nth(number).locator("td.snippet"))
        assert width >= 300, f"row {number}: the text column shrank to {width:.0f} px"
        assert height <= 220, f"row {number}: the row grew to {height:.0f} px"


PHONE = {"width": 390, "height": 844}
# How far the page, and the boxes `selector` finds in it, reach beyond their own width (0:
# nothing scrolls sideways), and the element that reaches furthest right.
SIDEWAYS = """selector => {
  const inner = selector ? [...document.querySelectorAll(selector)] : [];
  const boxes = [document.documentElement, ...inner];
  const over = boxes.map(e => e.scrollWidth - e.clientWidth);
  let worst = '', right = 0;
  for (const e of document.querySelectorAll('body *')) {
    const r = e.getBoundingClientRect().right;
    if (r > right) { right = r; worst = `${e.tagName.toLowerCase()}.${e.className}`; }
  }
  return [Math.max(...over), `${worst} reaches ${right}`];
}"""


def assert_nothing_scrolls_sideways(page, where, boxes=""):
    """Neither the page nor (a list's) `boxes` scroll sideways. Other data tables may scroll
    in their own box, as a phone's reflow allows a table that needs its two dimensions."""
    over, widest = page.evaluate(SIDEWAYS, boxes)
    assert over <= 1, f"{where} scrolls sideways by {over} px at 390 px ({widest})"


def test_at_390_px_a_row_puts_its_text_above_the_controls_and_nothing_scrolls_sideways(
    live_server, page, log_in, reviewer, twelve_copies, browser_problems, screenshot
):
    page.set_viewport_size(PHONE)
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(live_server.url + "/exclusions/?sort=overlap")
    rows = page.locator("#results tr[data-row]")
    expect(rows).to_have_count(14)
    page.keyboard.press("j")
    for number, key in enumerate("cf1c"):
        page.keyboard.press(key)
        expect(rows.nth(number)).to_contain_text("confirmed" if key == "c" else "false positive")
    for number in range(4):
        row = rows.nth(number)
        text_top, _, text_width, _ = box(row.locator("td.snippet"))
        assert text_width >= 0.7 * PHONE["width"], (
            f"row {number}: the text column is {text_width:.0f} px of {PHONE['width']}"
        )
        # The controls wrap below the text, each inside the screen.
        undo_top, _, _, _ = box(row.get_by_role("button", name="Undo"))
        assert undo_top > text_top, f"row {number}: the controls sit beside the text"
        rights = row.locator("button, summary, .badge").evaluate_all(
            "es => es.map(e => e.getBoundingClientRect().right)"
        )
        assert max(rights) <= PHONE["width"], f"row {number}: a control is off screen"
    screenshot("list-layout-390")
    assert_nothing_scrolls_sideways(page, "the exclusions list", "#results .table-wrap")

    page.goto(live_server.url + "/near-misses/")
    near = page.locator("#results tr[data-row]").first
    page.keyboard.press("j")
    page.keyboard.press("n")
    expect(near).to_contain_text("false negative")
    _, _, text_width, _ = box(near.locator("td.snippet"))
    assert text_width >= 0.7 * PHONE["width"], f"near misses: the text is {text_width:.0f} px"
    assert_nothing_scrolls_sideways(page, "the near-miss list", "#results .table-wrap")

    for where, path in [
        ("the record view", f"/records/{twelve_copies['verbatim'].pk}/?list=exclusions"),
        ("review mode", "/review/?list=exclusions&sort=overlap"),
        ("the audit log", "/audit/"),
    ]:
        page.goto(live_server.url + path)
        expect(page.locator("h1")).to_be_visible()
        assert_nothing_scrolls_sideways(page, where)
