"""The record page in Chromium, as a team uses it: a colleague's verdict is shown with who and
when, `u` never withdraws it, a new verdict overrides it on the record (its history says so),
and one's own undo goes back level by level; at 390 px a record with a long provenance (a path
for an id, as real transcripts have) keeps to the screen and passes axe-core."""

import re

import pytest
from playwright.sync_api import expect

from poimen import services
from poimen.models import Event, Record

pytestmark = pytest.mark.e2e

REVIEWER_PASSWORD = "rita-reviews-things"
LONG_ID = "/home/someone/.claude/projects/work_a_rather_deep_checkout/0f9c2a11aaaa.jsonl#b15bd348a4"


@pytest.fixture
def otto(make_reviewer):
    return make_reviewer("otto")


def test_u_never_withdraws_a_colleagues_verdict_and_a_new_one_overrides_it(
    live_server, page, log_in, reviewer, otto, desk_data, browser_problems
):
    record = desk_data["verbatim"]
    theirs = services.review_record(record=record, verdict="confirmed", actor=otto)
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(f"{live_server.url}/records/{record.pk}/")
    bar = page.get_by_role("region", name="Verdict")
    expect(bar).to_contain_text("by otto")
    expect(bar.locator("[data-colleague-verdict]")).to_contain_text("overriding theirs")
    expect(page.get_by_role("button", name=re.compile("Undo"))).to_have_count(0)
    page.locator("[data-pane='record']").focus()
    page.keyboard.press("u")
    page.wait_for_timeout(300)
    assert Record.objects.get(pk=record.pk).review_id == theirs.pk
    assert not Event.objects.filter(type="review_undone").exists()

    # A new verdict, given knowingly over otto's: recorded as overriding it.
    page.keyboard.press("f")
    expect(page.locator("h1")).to_contain_text("false positive")
    history = page.get_by_role("region", name="History")
    expect(history.locator("[data-overrides]").first).to_contain_text(
        "overriding otto's verdict, confirmed"
    )
    # Rita's own verdict has its undo; undone, otto's holds again.
    page.get_by_role("button", name=re.compile("Undo this verdict")).click()
    expect(page.locator("h1")).to_contain_text("confirmed")
    expect(bar.locator("[data-colleague-verdict]")).to_be_visible()
    assert Record.objects.get(pk=record.pk).review_id == theirs.pk


@pytest.mark.parametrize("width", [1360, 390])
def test_a_redacted_record_with_a_long_provenance_keeps_to_the_screen(
    live_server, axe_page, axe_violations, reviewer, desk_data_redacted, width
):
    record = desk_data_redacted["pasted"]
    Record.objects.filter(pk=record.pk).update(
        external_id=LONG_ID, session="checkout-outage-chat-" + "x" * 40
    )
    page = axe_page
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("User name").fill("rita")
    page.get_by_label("Password").fill(REVIEWER_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")
    page.goto(f"{live_server.url}/records/{record.pk}/")
    expect(page.locator("h1")).to_contain_text("redacted")
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= width + 1
    assert axe_violations(page) == []


def test_u_on_a_list_row_with_a_colleagues_verdict_is_refused_in_that_row(
    live_server, page, log_in, reviewer, otto, desk_data, browser_problems
):
    record = desk_data["verbatim"]
    theirs = services.review_record(record=record, verdict="confirmed", actor=otto)
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(f"{live_server.url}/exclusions/?sort=overlap")
    row = page.locator(f"#row-{record.pk}")
    row.locator("td").first.click()
    expect(row).to_have_class(re.compile("is-current"))
    page.keyboard.press("u")
    expect(row.get_by_role("alert")).to_contain_text("you can undo only your own verdicts")
    expect(page.locator("#results [data-row]")).to_have_count(2)  # the list is still there
    assert Record.objects.get(pk=record.pk).review_id == theirs.pk


def test_u_in_review_mode_brings_the_mistake_back_without_a_page_load(
    live_server, page, log_in, reviewer, desk_data, browser_problems
):
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(f"{live_server.url}/review/?list=exclusions&sort=overlap")
    progress = page.locator("[data-progress]")
    expect(progress).to_contain_text("0 of 2 reviewed, 2 left")
    mistaken = page.locator("h1").inner_text()
    page.evaluate("window.loadedOnce = true")  # gone if a full page load happens
    page.wait_for_timeout(100)
    page.keyboard.press("f")
    expect(progress).to_contain_text("0 of 1 reviewed, 1 left")  # released: off the list
    page.keyboard.press("u")
    expect(progress).to_contain_text("0 of 2 reviewed, 2 left")
    expect(page.locator("h1")).to_have_text(mistaken)  # on screen again, to judge again
    expect(page.locator("[data-pane='record']")).to_be_focused()
    page.keyboard.press("c")
    expect(progress).to_contain_text("1 of 2 reviewed, 1 left")
    assert page.evaluate("window.loadedOnce") is True
