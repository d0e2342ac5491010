"""Review mode in a real Chromium: the next unreviewed record of the current filter, n of N
reviewed, one key per verdict, and no full page load between records."""

import re

import pytest
from playwright.sync_api import expect

from poimen.models import Record

pytestmark = pytest.mark.e2e

REVIEWER_PASSWORD = "rita-reviews-things"


@pytest.fixture
def four_copies(desk_data, make_record):
    artifact = desk_data["verbatim"].best_artifact
    for number in range(2):
        make_record(
            text=f"Copy {number} of the release notes skill.",
            status="excluded",
            derived=True,
            best_overlap=0.82 + number / 100,
            best_artifact=artifact,
        )
    return desk_data


def test_review_mode_walks_the_unreviewed_by_keyboard_without_a_page_load(
    live_server, page, log_in, reviewer, four_copies, browser_problems
):
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(live_server.url + "/exclusions/?sort=closeness")
    page.locator("[data-action='review']").click()
    expect(page).to_have_url(re.compile(r"/review/\?list=exclusions&sort=closeness"))
    progress = page.locator("[data-progress]")
    expect(progress).to_contain_text("0 of 4 reviewed, 4 left")
    # Closest to the threshold first: the 0.82 copy.
    first = page.locator("h1").inner_text()
    page.evaluate("window.loadedOnce = true")  # gone if a full page load happens
    page.wait_for_timeout(100)

    page.keyboard.press("c")
    expect(progress).to_contain_text("1 of 4 reviewed, 3 left")
    assert page.locator("h1").inner_text() != first
    expect(page.locator("[data-pane='record']")).to_be_focused()
    # A false positive releases the record: it leaves the exclusions list.
    page.keyboard.press("f")
    expect(progress).to_contain_text("1 of 3 reviewed, 2 left")
    skipped = page.locator("h1").inner_text()
    page.keyboard.press("j")  # skip one
    expect(progress).to_contain_text("1 of 3 reviewed, 2 left")
    # A key waits for the record it is meant for: pressed before that one shows, it would be
    # ignored (the busy state, test_review_holds.py).
    expect(page.locator("h1")).not_to_have_text(skipped)
    page.keyboard.press("c")
    expect(page.locator("h1")).to_have_text("Nothing left to review here")
    expect(progress).to_contain_text("2 of 3 reviewed, 1 left")
    assert page.evaluate("window.loadedOnce") is True
    assert Record.objects.filter(review__isnull=False).count() == 3
    page.get_by_role("link", name="Start again from the top").click()
    expect(progress).to_contain_text("Review mode · 2 of 3 reviewed, 1 left")


def record_shown(page) -> int:
    return int(re.search(r"#(\d+)", page.locator("h1").inner_text()).group(1))


def test_the_later_of_two_racing_verdicts_is_told_and_shown_the_first_in_place(
    live_server, two_reviewers, four_copies
):
    rita, sam = two_reviewers
    rita.goto(live_server.url + "/review/?list=exclusions&sort=closeness")
    raced = record_shown(rita)
    # Review mode holds the record it shows Rita, so Sam's review mode serves him another;
    # he can still open hers from a list and judge it there.
    sam.goto(live_server.url + "/review/?list=exclusions&sort=closeness")
    assert record_shown(sam) != raced
    sam.goto(f"{live_server.url}/records/{raced}/")
    rita.evaluate("window.loadedOnce = true")  # gone if a full page load happens
    rita.wait_for_timeout(100)

    sam.keyboard.press("c")
    expect(sam.locator(".review-bar")).to_contain_text("Verdict in force")
    rita.keyboard.press("f")
    # Rita is told, where she is, that Sam's verdict came first and hers was not recorded;
    # the record stays in front of her as it now stands, with his verdict in force.
    refusal = rita.get_by_role("alert")
    expect(refusal).to_contain_text(f"record #{raced}: sam judged it confirmed")
    expect(refusal).to_contain_text("yours was not recorded")
    assert record_shown(rita) == raced
    expect(rita.locator(".review-bar")).to_contain_text(
        re.compile(r"Verdict in force: confirmed.*\s+by sam", re.IGNORECASE)
    )
    expect(rita.locator("[data-progress]")).to_contain_text("1 of 4 reviewed, 3 left")
    assert rita.evaluate("window.loadedOnce") is True
    # u undoes her own last verdict (she has none): never his.
    rita.keyboard.press("u")
    rita.wait_for_timeout(300)
    judged = Record.objects.select_related("review__reviewer").get(pk=raced)
    assert judged.review.verdict == "confirmed" and judged.review.reviewer.username == "sam"
    assert judged.reviews.count() == 1

    # Having seen his, she may still overrule it, knowingly: hers now lands (released, the
    # record leaves the list), and on she goes.
    rita.keyboard.press("f")
    expect(rita.locator("[data-progress]")).to_contain_text("0 of 3 reviewed, 3 left")
    assert record_shown(rita) != raced
    expect(rita.get_by_role("alert")).to_have_count(0)
    assert rita.evaluate("window.loadedOnce") is True
    judged = Record.objects.select_related("review__reviewer").get(pk=raced)
    assert judged.review.verdict == "false_positive" and judged.review.reviewer.username == "rita"
