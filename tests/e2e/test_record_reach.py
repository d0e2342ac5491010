"""The record view on a phone and its reasons (issue 24), in a real Chromium: at 390 px the
verdict buttons stay on screen wherever the page is scrolled; each false-positive reason says
what it means (its button is described by it, and the definitions unfold under the buttons);
axe-core clean; the team page's kappa comes with its interval and its number of records."""

import pytest
from playwright.sync_api import expect

from poimen.models import SecondReview
from poimen.services import review_record, second_review_give

pytestmark = pytest.mark.e2e


def _log_in(page, live_server, name, password):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("User name").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")


def _on_screen(locator, page) -> bool:
    box = locator.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


@pytest.mark.parametrize("width", [390, 1360])
def test_verdict_buttons_stay_in_reach_and_reasons_say_what_they_mean(
    live_server, axe_page, axe_violations, reviewer, desk_data, width
):
    page = axe_page
    page.set_viewport_size({"width": width, "height": 844})
    _log_in(page, live_server, "rita", "rita-reviews-things")
    page.goto(f"{live_server.url}/records/{desk_data['verbatim'].pk}/?list=exclusions")
    confirm = page.get_by_role("button", name="Confirm exclusion")
    quoted = page.get_by_role("button", name="quoted in a discussion")
    described = quoted.evaluate(
        "b => document.getElementById(b.getAttribute('aria-describedby')).textContent"
    )
    assert described.startswith("The record quotes the artifact")
    page.get_by_text("What the reasons mean").click()
    expect(page.locator(".reason-definitions dd").first).to_be_visible()
    assert axe_violations(page) == []
    if width == 390:
        for scrolled in ("0", "document.body.scrollHeight / 2", "document.body.scrollHeight"):
            page.evaluate(f"() => window.scrollTo(0, {scrolled})")
            page.wait_for_timeout(100)
            assert _on_screen(confirm, page), scrolled
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width + 1


def test_kappa_shows_its_interval_and_its_records(
    live_server, page, log_in, settings, reviewer, make_reviewer, borderline, browser_problems
):
    settings.POIMEN_SECOND_REVIEW_SHARE = 1.0
    sam = make_reviewer("sam")
    first, second = borderline(2)
    for record in (first, second):
        review_record(record=record, verdict="confirmed", actor=sam)
    for record, verdict in ((first, "confirmed"), (second, "false_positive")):
        second_review_give(
            second=SecondReview.objects.get(record=record), verdict=verdict, actor=reviewer
        )
    log_in("rita", "rita-reviews-things")
    page.goto(f"{live_server.url}/team/disagreements/")
    kappa = page.locator("[data-kappa]").first
    expect(kappa).to_contain_text("(-0.81–0.81)")
    expect(kappa).to_contain_text("on 2 records: too few to lean on")
