"""Two reviewers in plain review mode never read the same record at once (the record shown is
held a while), and a key pressed while a verdict is in flight never acts on the record that
comes next, unseen: the page says it is busy (visible, a live region) and ignores the key
(issue 24). In a real Chromium; axe-core on the busy state."""

import re

import pytest
from playwright.sync_api import expect

from poimen.models import Record, Review

pytestmark = pytest.mark.e2e

REVIEW = "/review/?list=exclusions&sort=closeness"


def record_shown(page) -> int:
    heading = page.locator("h1").inner_text()
    found = re.search(r"#(\d+)", heading)
    assert found, heading
    return int(found.group(1))


def test_two_reviewers_work_one_queue_without_reading_the_same_record(
    live_server, two_reviewers, borderline
):
    borderline(6)  # with desk_data's two exclusions: eight records
    rita, sam = two_reviewers
    seen = {"rita": [], "sam": []}
    for page in (rita, sam):
        page.goto(live_server.url + REVIEW)
    for _ in range(4):
        for name, page in (("rita", rita), ("sam", sam)):
            shown = record_shown(page)
            other = sam if page is rita else rita
            if "Nothing left" not in other.locator("h1").inner_text():  # the last one: held
                assert shown != record_shown(other)
            seen[name].append(shown)
            judged = Review.objects.count()
            page.keyboard.press("c")
            expect(page.locator("[data-progress]")).to_contain_text(f"{judged + 1} of 8")
    assert not set(seen["rita"]) & set(seen["sam"])
    assert Review.objects.count() == 8
    assert Record.objects.filter(reviews__isnull=False).distinct().count() == 8
    for page in (rita, sam):
        expect(page.locator("h1")).to_have_text("Nothing left to review here")


def test_keys_during_a_verdict_in_flight_are_ignored_and_said_so(
    live_server, axe_page, axe_violations, reviewer, borderline
):
    borderline(2)
    page = axe_page
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("User name").fill("rita")
    page.get_by_label("Password").fill("rita-reviews-things")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")
    page.goto(live_server.url + REVIEW)
    first = record_shown(page)

    # The verdict is held in flight (as a slow server would) until the test lets it go.
    held = []
    page.route(re.compile(r"/review/\d+/verdict/"), lambda route: held.append(route))
    page.keyboard.press("c")
    busy = page.locator("#busy")
    expect(busy).to_contain_text("Sending")
    expect(page.locator("main")).to_have_attribute("aria-busy", "true")
    expect(busy).to_have_attribute("role", "status")
    assert axe_violations(page) == []
    page.keyboard.press("c")  # meant for... whatever comes next: ignored
    expect(busy).to_contain_text("Key ignored")
    page.keyboard.press("j")
    page.wait_for_timeout(200)
    assert len(held) == 1

    held[0].continue_()
    page.unroute(re.compile(r"/review/\d+/verdict/"))
    expect(page.locator("[data-progress]")).to_contain_text("1 of 4 reviewed, 3 left")
    expect(busy).to_be_empty()
    expect(page.locator("main")).not_to_have_attribute("aria-busy", "true")
    following = record_shown(page)
    assert following != first
    # Only the record seen was judged; the next one waits for a key pressed on it.
    assert list(Review.objects.values_list("record_id", flat=True)) == [first]
    page.keyboard.press("c")
    expect(page.locator("[data-progress]")).to_contain_text("2 of 4 reviewed, 2 left")
    assert set(Review.objects.values_list("record_id", flat=True)) == {first, following}
