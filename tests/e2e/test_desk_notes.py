"""Notes, reason "other" and saved filters in a real Chromium: a note from a list row by
keyboard, "other" asking for its note in a row, on the record view and in review mode, the
reason filter, saving and applying a filter set; axe-core on each state, and 390 px."""

import re

import pytest
from playwright.sync_api import expect

from poimen.models import Review, SavedFilter
from poimen.services import review_record

pytestmark = pytest.mark.e2e

REVIEWER_PASSWORD = "rita-reviews-things"


@pytest.fixture
def copies(desk_data, make_record):
    artifact = desk_data["verbatim"].best_artifact
    for number in range(2):
        make_record(
            text=f"Copy {number} of the release notes skill.",
            status="excluded",
            derived=True,
            best_overlap=0.95 - number / 100,
            best_artifact=artifact,
        )
    return desk_data


@pytest.fixture
def desk(live_server, axe_page, reviewer):
    """A page logged in as rita, in a context axe-core can be injected into (the desk's CSP
    is in force in the other browser tests); it ends asserting no console error or page error
    was seen."""
    page = axe_page
    problems = []

    def seen(message):
        # A form sent with an error answers 400 on purpose (the browser logs that status).
        if message.type == "error" and "status of 400" not in message.text:
            problems.append(f"console {message.type}: {message.text}")

    page.on("console", seen)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("User name").fill("rita")
    page.get_by_label("Password").fill(REVIEWER_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")
    yield page
    assert problems == []


def wide(page) -> int:
    return page.evaluate("() => document.documentElement.scrollWidth")


def test_a_note_from_a_row_and_reason_other_by_keyboard(
    live_server, desk, reviewer, copies, axe_violations
):
    page = desk
    judged = copies["verbatim"]
    review_record(record=judged, verdict="confirmed", actor=reviewer)
    page.goto(live_server.url + "/exclusions/?sort=time")
    page.evaluate("window.loadedOnce = true")
    row = page.locator(f"#row-{judged.pk}")
    # Select the judged row with j, then e opens its note with the cursor in it.
    for _ in range(10):
        page.keyboard.press("j")
        if "is-current" in (row.get_attribute("class") or ""):
            break
    expect(row).to_have_class(re.compile("is-current"))
    page.keyboard.press("e")
    field = row.locator(".row-note textarea")
    expect(field).to_be_focused()
    field.fill("<i>confirmed</i> with the author")
    page.keyboard.press("Control+Enter")
    expect(page.locator(f"#row-{judged.pk} [data-note]")).to_have_text(
        "“<i>confirmed</i> with the author”"
    )
    assert Review.objects.get(record=judged).note == "<i>confirmed</i> with the author"

    # Reason "other" (4) on an unjudged row asks for the note first; nothing is sent yet.
    other = page.locator("tr[data-row]").filter(has_not=page.locator("[data-note]")).first
    other_id = other.get_attribute("id")
    other.click(position={"x": 5, "y": 5})
    page.keyboard.press("4")
    asked = page.locator(f"#{other_id} .note-asked textarea")
    expect(asked).to_be_focused()
    assert Review.objects.count() == 1
    assert axe_violations(page) == []
    page.screenshot(path="screenshots/notes-row-other-asked.png", full_page=True)
    asked.fill("our own example, published on purpose")
    page.keyboard.press("Control+Enter")
    expect(page.locator(f"#{other_id} [data-note]")).to_contain_text("our own example")
    review = Review.objects.get(record_id=int(other_id.removeprefix("row-")))
    assert (review.verdict, review.reason) == ("false_positive", "other")
    assert page.evaluate("window.loadedOnce") is True  # all without a page load


def test_reason_other_on_the_record_view_and_in_review_mode_asks_for_the_note(
    live_server, desk, copies, axe_violations
):
    page = desk
    record = copies["verbatim"]
    page.goto(f"{live_server.url}/records/{record.pk}/?list=exclusions")
    page.keyboard.press("4")
    asked = page.locator("#verdict-form textarea[name='note']")
    expect(asked).to_be_focused()
    expect(page.locator("#verdict-form [role='alert']")).to_contain_text("needs a note")
    assert axe_violations(page) == []
    assert not Review.objects.exists()
    asked.fill("a quotation we wrote")
    page.get_by_role("button", name="Release: other").click()
    expect(page.locator(".messages")).to_contain_text("false positive")
    assert Review.objects.get().reason == "other"

    page.goto(live_server.url + "/review/?list=exclusions&sort=closeness")
    page.evaluate("window.loadedOnce = true")
    progress = page.locator("[data-progress]")
    expect(progress).to_contain_text("0 of 3 reviewed")
    page.keyboard.press("4")
    asked = page.locator("#verdict-form textarea[name='note']")
    expect(asked).to_be_focused()
    asked.fill("boilerplate of our own")
    page.keyboard.press("Control+Enter")
    expect(progress).to_contain_text("0 of 2 reviewed")  # released, so it left the list
    assert page.evaluate("window.loadedOnce") is True
    assert Review.objects.filter(reason="other").count() == 2


def test_filter_by_reason_save_the_filters_and_apply_them(
    live_server, desk, reviewer, copies, axe_violations
):
    page = desk
    review_record(
        record=copies["verbatim"], verdict="false_positive", reason="reuse", actor=reviewer
    )
    review_record(
        record=copies["script"], verdict="false_positive", reason="quoted", actor=reviewer
    )
    page.goto(live_server.url + "/exclusions/")
    page.locator("form.filters select[name='reason']").select_option("reuse")
    expect(page).to_have_url(re.compile(r"reason=reuse"))
    expect(page.locator("#results tr[data-row]")).to_have_count(1)
    # Saving after the filters changed (only the results were swapped) saves those shown.
    page.get_by_text("Save these filters…", exact=True).click()
    page.locator("#save-filters-name").fill("reused")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".messages")).to_contain_text("Filters saved as “reused”")
    assert SavedFilter.objects.get().query == "reason=reuse&sort=overlap"
    assert axe_violations(page) == []

    page.goto(live_server.url + "/exclusions/")
    expect(page.locator("#results tr[data-row]")).to_have_count(2)
    page.get_by_role("navigation", name="Saved filters").get_by_role("link", name="reused").click()
    expect(page).to_have_url(re.compile(r"/exclusions/\?reason=reuse&sort=overlap$"))
    expect(page.locator("#results tr[data-row]")).to_have_count(1)
    page.get_by_role("link", name="Export these…").click()
    expect(page.locator("[data-described]")).to_have_text(
        "released as false positive because legitimate reuse"
    )

    page.goto(live_server.url + "/filters/")
    page.get_by_label("New name for reused").fill("reused on purpose")
    page.get_by_role("button", name="Rename").click()
    expect(page.locator(".messages")).to_contain_text("“reused” is now “reused on purpose”")
    assert axe_violations(page) == []
    page.get_by_role("button", name="Delete reused on purpose").click()
    expect(page.locator(".messages")).to_contain_text("deleted")
    assert not SavedFilter.objects.exists()


@pytest.mark.parametrize("width", [390])
def test_notes_and_saved_filters_fit_a_phone(
    live_server, desk, reviewer, copies, axe_violations, width
):
    page = desk
    from poimen.services import saved_filter_save

    review_record(record=copies["verbatim"], verdict="confirmed", note="seen", actor=reviewer)
    saved_filter_save(
        user=reviewer, list_name="exclusions", name="a long name for skills", query="kind=skill"
    )
    page.set_viewport_size({"width": width, "height": 844})
    for path in ("/exclusions/", "/filters/", f"/records/{copies['verbatim'].pk}/"):
        page.goto(live_server.url + path)
        for summary in page.locator("details:not([open]) > summary").all():
            if summary.is_visible():
                summary.click()
        name = path.strip("/").replace("/", "-") or "home"
        page.screenshot(path=f"screenshots/notes-{name}-{width}.png", full_page=True)
        assert wide(page) <= width + 1, path
        assert axe_violations(page) == [], path
