"""The review desk in a real Chromium: log in, filter and page and go back, paired highlights,
judging by keyboard with undo, the live threshold preview; no console errors or CSP violations
on any page, and screenshots of the main pages in screenshots/."""

import re

import pytest
from playwright.sync_api import expect

from poimen.models import Record
from poimen.selectors import paging

pytestmark = pytest.mark.e2e

REVIEWER_PASSWORD = "rita-reviews-things"
TUNER_PASSWORD = "tom-tunes-thresholds"


@pytest.fixture
def many_exclusions(desk_data, make_record):
    """A few more exclusions of the same skill, so that a small page size pages."""
    artifact = desk_data["verbatim"].best_artifact
    for number in range(4):
        make_record(
            text=f"Copy {number} of the release notes skill, pasted into a chat.",
            status="excluded",
            derived=True,
            best_overlap=0.85 + number / 100,
            best_artifact=artifact,
        )
    return desk_data


def test_log_in_and_every_page_is_clean(
    live_server, page, log_in, reviewer, tuner, desk_data, browser_problems, screenshot
):
    log_in("tom", TUNER_PASSWORD)
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    screenshot("overview")
    record = desk_data["verbatim"]
    pages = {
        "exclusions": "/exclusions/",
        "near-misses": "/near-misses/",
        "record": f"/records/{record.pk}/?list=exclusions",
        "artifacts": "/artifacts/",
        "artifact": f"/artifacts/{record.best_artifact_id}/",
        "runs": "/runs/",
        "audit": "/audit/",
        "export": "/export/?list=exclusions",
        "bulk": "/exclusions/bulk/",
        "tuning": "/tuning/",
        "tuning-skill": "/tuning/skill/?value=0.35",
    }
    for name, path in pages.items():
        response = page.goto(live_server.url + path)
        assert response.status == 200, path
        expect(page.locator("h1")).to_be_visible()
        screenshot(name)
    page.goto(live_server.url + "/login/")
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("heading", name="Log in to the review desk")).to_be_visible()
    screenshot("login")


def test_filter_and_page_and_go_back(
    live_server, page, log_in, reviewer, many_exclusions, browser_problems, monkeypatch
):
    monkeypatch.setattr(paging, "PAGE_SIZE", 2)
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(live_server.url + "/exclusions/")
    rows = page.locator("#results tr[data-row]")
    expect(rows).to_have_count(2)

    page.get_by_label("Overlap from").fill("0.86")
    page.get_by_label("Overlap from").press("Enter")
    expect(page).to_have_url(re.compile(r"overlap_min=0\.86"))
    expect(page.locator("#results")).to_contain_text("5 records")
    first_page = rows.first.get_attribute("id")

    page.get_by_role("link", name="Next page →").click()
    expect(page).to_have_url(re.compile(r"after="))
    expect(rows.first).not_to_have_id(first_page)
    second_page = rows.first.get_attribute("id")
    assert second_page != first_page

    page.go_back()
    expect(page).not_to_have_url(re.compile(r"after="))
    expect(rows.first).to_have_id(first_page)
    page.go_forward()
    expect(rows.first).to_have_id(second_page)
    page.go_back()
    page.go_back()
    expect(page).not_to_have_url(re.compile(r"overlap_min"))
    expect(page.locator("#results")).to_contain_text("6 records")


def test_record_shows_paired_highlights_that_link_across(
    live_server, page, log_in, reviewer, desk_data, browser_problems
):
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(f"{live_server.url}/records/{desk_data['script'].pk}/")
    on_record = page.locator("[data-pane='record'] mark[data-passage='1']")
    on_artifact = page.locator("[data-pane='artifact'] mark[data-passage='1']")
    expect(on_record).to_have_class(re.compile(r"\bhl-1\b"))
    expect(on_artifact).to_have_class(re.compile(r"\bhl-1\b"))
    # The record's <script> line is text on the page, never markup.
    expect(page.locator("[data-pane='record']")).to_contain_text("<script>alert('owned')")
    on_record.click()
    expect(on_record).to_have_class(re.compile(r"is-focused"))
    expect(on_artifact).to_have_class(re.compile(r"is-focused"))


def test_judge_by_keyboard_and_undo(
    live_server, page, log_in, reviewer, desk_data, browser_problems
):
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(live_server.url + "/exclusions/?sort=overlap")
    rows = page.locator("#results tr[data-row]")
    expect(rows).to_have_count(2)
    first_id = int(rows.first.get_attribute("id").removeprefix("row-"))

    page.keyboard.press("/")
    expect(page.get_by_label("Search")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.get_by_label("Search")).not_to_be_focused()

    page.keyboard.press("j")
    expect(rows.first).to_have_class(re.compile(r"is-current"))
    page.keyboard.press("c")
    expect(rows.first).to_contain_text("confirmed")
    expect(rows.nth(1)).to_have_class(re.compile(r"is-current"))
    assert Record.objects.get(pk=first_id).review.verdict == "confirmed"

    page.keyboard.press("u")
    expect(rows.first).to_contain_text("not reviewed")
    assert Record.objects.get(pk=first_id).review_id is None

    # On the record view: f releases it and moves on to the next record of the list.
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/records/{first_id}/"))
    page.wait_for_load_state("load")
    page.keyboard.press("?")
    expect(page.locator("#keys-help")).to_be_visible()
    page.keyboard.press("?")
    expect(page.locator("#keys-help")).to_be_hidden()
    # Keys typed into a field are text, not verdicts.
    page.get_by_text("Add a note").click()
    page.get_by_label("Note (optional)").press("f")
    expect(page.get_by_label("Note (optional)")).to_have_value("f")
    assert Record.objects.get(pk=first_id).review_id is None
    page.keyboard.press("Escape")
    page.keyboard.press("f")
    expect(page).not_to_have_url(re.compile(rf"/records/{first_id}/"))
    expect(page.locator(".messages")).to_contain_text(f"Record #{first_id}")
    assert Record.objects.get(pk=first_id).status == "evidence"
    # A mis-key costs one key: u on the next record undoes the verdict just given.
    page.wait_for_load_state("load")  # the keys listen once the page's script has run
    page.keyboard.press("u")
    expect(page.locator(".messages")).to_contain_text("undone")
    assert Record.objects.get(pk=first_id).status == "excluded"


def test_tune_a_threshold_and_watch_the_preview(
    live_server, page, log_in, tuner, desk_data, browser_problems, screenshot
):
    log_in("tom", TUNER_PASSWORD)
    page.goto(live_server.url + "/tuning/skill/")
    value = page.get_by_label("New threshold")
    preview = page.locator("#preview")

    value.fill("0.3")
    expect(preview.locator("[data-preview-value='0.3']")).to_be_visible()
    # the near miss, half a skill between two genuine paragraphs, would be redacted
    expect(preview).to_contain_text(re.compile(r"\b1\s*newly redacted"))
    expect(page.locator("#histogram line.proposed")).to_have_attribute("data-proposed", "0.3")

    value.fill("1")
    expect(preview.locator("[data-preview-value='1.0']")).to_be_visible()
    expect(preview).to_contain_text(re.compile(r"\b2\s*newly released"))

    value.fill("0.05")
    expect(preview).to_contain_text("refilter is needed")

    page.get_by_role("link", name="log", exact=True).click()
    expect(page.locator("#histogram svg")).to_have_attribute("aria-label", re.compile("log scale"))

    value.fill("0.3")
    page.get_by_label("Reason").fill("the near miss is a copy")
    page.get_by_role("button", name="Save threshold").click()
    expect(page.locator(".messages")).to_contain_text("0.8 → 0.3")
    screenshot("tuning-saved")
    assert Record.objects.get(pk=desk_data["near"].pk).status == "redacted"


def test_artifact_text_is_shown_whole(
    live_server, page, log_in, reviewer, desk_data, browser_problems
):
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(f"{live_server.url}/artifacts/{desk_data['verbatim'].best_artifact_id}/")
    text = page.locator(".pane-text")  # the heat map when records copy it
    expect(text).to_contain_text("release notes")
    hidden = text.evaluate("element => element.scrollHeight - element.clientHeight")
    assert hidden <= 1
