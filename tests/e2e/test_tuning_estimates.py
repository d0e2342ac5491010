"""Tuning from the verdicts and the artifact heat map in a real Chromium: typing a value lists
the judged records it would flip (linked), the estimates follow; a part of an artifact's text
lists the records that copy it; axe-core on each state, at 1360 and 390 px."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from poimen.services import review_record

pytestmark = pytest.mark.e2e

SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"

TUNER_PASSWORD = "tom-tunes-thresholds"


@pytest.fixture
def judged(desk_data, reviewer):
    review_record(record=desk_data["verbatim"], verdict="confirmed", actor=reviewer)
    review_record(record=desk_data["script"], verdict="false_positive", actor=reviewer)
    review_record(record=desk_data["near"], verdict="false_negative", actor=reviewer)
    return desk_data


def _screenshot(page, name):
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"{name}.png", full_page=True)


def _clean(page, axe_violations, width):
    found = axe_violations(page)
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    if wide > width + 1:
        found.append(f"scrolls sideways: {wide} px wide at {width}")
    return found


@pytest.mark.parametrize("width", [1360, 390])
def test_typing_a_value_lists_the_flips_and_moves_the_estimates(
    live_server, axe_page, axe_violations, tuner, judged, width
):
    page = axe_page
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("User name").fill("tom")
    page.get_by_label("Password").fill(TUNER_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")

    page.goto(live_server.url + "/tuning/skill/")
    estimates = page.locator("table.estimates")
    expect(estimates.locator("tr.current")).to_contain_text("0.8 (now)")
    expect(page.locator("#histogram polyline.estimate.precision")).to_have_count(1)

    page.get_by_label("New threshold").fill("0.3")
    preview = page.locator("#preview")
    expect(preview).to_contain_text("Judged records 0.3 would flip")
    expect(preview).to_contain_text(re.compile(r"At 0\.3: precision \d\.\d\d"))
    expect(page.locator("table.estimates tr.previewed")).to_contain_text("0.3 (previewed)")
    in_line = preview.locator("table.flips.in_line")
    expect(in_line.get_by_role("link", name=f"#{judged['near'].pk}")).to_be_visible()
    assert _clean(page, axe_violations, width) == []
    _screenshot(page, f"tuning-estimates-{width}")

    page.get_by_label("New threshold").fill("1")
    against = preview.locator("table.flips.against")
    expect(against.get_by_role("link", name=f"#{judged['verbatim'].pk}")).to_be_visible()
    against.get_by_role("link", name=f"#{judged['verbatim'].pk}").click()
    page.wait_for_url(re.compile(rf"/records/{judged['verbatim'].pk}/"))


@pytest.mark.parametrize("width", [1360, 390])
def test_a_part_of_the_artifact_lists_the_records_that_copy_it(
    live_server, axe_page, axe_violations, reviewer, desk_data, width
):
    page = axe_page
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("User name").fill("rita")
    page.get_by_label("Password").fill("rita-reviews-things")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")

    record = desk_data["verbatim"]
    page.goto(f"{live_server.url}/artifacts/{record.best_artifact_id}/")
    expect(page.locator(".heat-legend")).to_contain_text("0: not copied")
    assert _clean(page, axe_violations, width) == []
    _screenshot(page, f"artifact-heatmap-{width}")

    page.get_by_role("link", name="Part 2: copied by 1 record").click()
    copies = page.locator("#copies")
    expect(copies).to_contain_text("Records that copy part 2")
    expect(page).to_have_url(re.compile(r"\?part=2"))
    assert _clean(page, axe_violations, width) == []
    _screenshot(page, f"artifact-part-{width}")
    copies.get_by_role("link", name=f"#{record.pk}").click()
    page.wait_for_url(re.compile(rf"/records/{record.pk}/\?match="))
