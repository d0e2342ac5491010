"""The stylesheet reaches the parts drawn by it alone (issue 24: two unclosed blocks dropped
every rule after them, and no test noticed): the heat map's levels and legend have their
colours, its text is not squeezed, and the tuning chart's precision and recall lines are
stroked, told apart by colour and dash."""

import pytest
from playwright.sync_api import expect

from poimen.services import review_record

pytestmark = pytest.mark.e2e

TRANSPARENT = {"rgba(0, 0, 0, 0)", "transparent"}


def _computed(locator, prop: str) -> str:
    return locator.evaluate(f"element => getComputedStyle(element).getPropertyValue('{prop}')")


def test_heat_map_levels_and_legend_have_their_colours(
    page, log_in, live_server, reviewer, desk_data, browser_problems
):
    log_in("rita", "rita-reviews-things")
    page.goto(f"{live_server.url}/artifacts/{desk_data['verbatim'].best_artifact_id}/")
    copied = page.locator("ol.heatmap li:not(.heat-0)").first
    expect(copied).to_be_visible()
    not_copied_swatch = page.locator(".heat-legend .heat-swatch.heat-0")
    copied_swatches = page.locator(".heat-legend .heat-swatch:not(.heat-0)")
    assert copied_swatches.count() >= 1
    colours = {
        _computed(copied_swatches.nth(i), "background-color")
        for i in range(copied_swatches.count())
    }
    assert not colours & TRANSPARENT
    assert _computed(not_copied_swatch, "background-color") not in colours
    # A copied part is painted as its swatch says.
    level = next(c for c in copied.get_attribute("class").split() if c.startswith("heat-"))
    assert _computed(copied, "background-color") == _computed(
        page.locator(f".heat-legend .heat-swatch.{level}"), "background-color"
    )
    # The text is not squeezed to a few characters a line (the dropped rules did that).
    width = page.locator("ol.heatmap .heat-text").first.evaluate(
        "e => e.getBoundingClientRect().width"
    )
    assert width > 300


def test_tuning_chart_lines_are_stroked(
    page, log_in, live_server, tuner, desk_data, browser_problems
):
    review_record(record=desk_data["verbatim"], verdict="confirmed", actor=tuner)
    review_record(record=desk_data["script"], verdict="false_positive", actor=tuner)
    review_record(record=desk_data["near"], verdict="false_negative", actor=tuner)
    log_in("tom", "tom-tunes-thresholds")
    page.goto(f"{live_server.url}/tuning/skill/")
    precision = page.locator("#histogram polyline.estimate.precision")
    recall = page.locator("#histogram polyline.estimate.recall")
    expect(precision).to_have_count(1)
    for line in (precision, recall):
        assert _computed(line, "fill") == "none"
        assert _computed(line, "stroke") not in {"none", ""} | TRANSPARENT
        assert float(_computed(line, "stroke-width").removesuffix("px")) >= 2
    assert _computed(precision, "stroke") != _computed(recall, "stroke")
    assert _computed(precision, "stroke-dasharray") == "none"
    assert _computed(recall, "stroke-dasharray") != "none"
    # Three verdicts: each value says in words it rests on too few (issue 24).
    expect(page.locator("[data-too-few]")).to_contain_text("fewer than 10 verdicts")
    expect(page.locator("table.estimates .too-few").first).to_be_visible()
