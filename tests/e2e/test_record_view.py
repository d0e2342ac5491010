"""The record view in a real Chromium: it opens at the first passage however deep in the text,
shows the decision with the precision that decides, and after a verdict the next record's
text has the focus."""

import re

import pytest
from playwright.sync_api import expect

from poimen.models import Match

pytestmark = pytest.mark.e2e

REVIEWER_PASSWORD = "rita-reviews-things"


@pytest.fixture
def deep_copy(desk_data, make_record, tmp_path):
    """A long record whose only passage (a copy of the release-notes skill) starts far down."""
    import json

    from poimen.models import Record
    from poimen.services import records_ingest
    from tests.factories import demo_skill

    filler = "\n".join(
        f"Line {n} of a long unrelated session about the backups." for n in range(900)
    )
    path = tmp_path / "deep.jsonl"
    text = filler + "\n\n" + demo_skill("release-notes")
    path.write_text(json.dumps({"id": "deep", "text": text}) + "\n", encoding="utf-8")
    records_ingest(paths=[path], source="deep")
    return Record.objects.get(source="deep")


def test_the_record_opens_at_its_first_passage_with_the_text_focused(
    live_server, page, log_in, reviewer, deep_copy, browser_problems
):
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(f"{live_server.url}/records/{deep_copy.pk}/")
    pane = page.locator("[data-pane='record']")
    mark = pane.locator("mark[data-passage='1']")
    expect(mark).to_be_in_viewport()
    expect(pane).to_be_focused()
    assert pane.evaluate("e => e.scrollTop") > 5000


def test_the_decision_reads_with_the_digits_that_decide(
    live_server, page, log_in, reviewer, desk_data, browser_problems
):
    near = desk_data["near"]
    Match.objects.filter(record=near).update(overlap=0.797)
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(f"{live_server.url}/records/{near.pk}/")
    expect(page.locator("[data-decision]")).to_have_text("0.797 < 0.800")


def test_after_a_verdict_the_next_records_text_has_the_focus(
    live_server, page, log_in, reviewer, desk_data, browser_problems
):
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(live_server.url + "/exclusions/?sort=overlap")
    page.keyboard.press("j")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/records/\d+/"))
    page.wait_for_load_state("load")
    first = page.url
    page.keyboard.press("c")
    expect(page).not_to_have_url(first)
    expect(page.locator("[data-pane='record']")).to_be_focused()


def test_one_key_releases_with_a_reason(
    live_server, page, log_in, reviewer, desk_data, browser_problems
):
    from poimen.models import Record

    record = desk_data["verbatim"]
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(f"{live_server.url}/records/{record.pk}/")
    page.wait_for_load_state("load")
    page.keyboard.press("3")
    expect(page.locator(".messages")).to_contain_text(f"Record #{record.pk}")
    review = Record.objects.get(pk=record.pk).review
    assert (review.verdict, review.reason) == ("false_positive", "boilerplate")


def test_the_passage_strip_shows_where_the_passage_lies_and_jumps_there(
    live_server, page, log_in, reviewer, deep_copy, browser_problems
):
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(f"{live_server.url}/records/{deep_copy.pk}/")
    pane = page.locator("[data-pane='record']")
    band = page.locator("nav[aria-label='Passages in the record'] [data-strip-passage='1'] rect")
    # The copy is the last fifth or so of the record: its band lies low on the strip.
    assert float(band.get_attribute("y")) > 700
    pane.evaluate("e => { e.scrollTop = 0; }")
    expect(pane.locator("mark[data-passage='1']")).not_to_be_in_viewport()
    band.click()
    expect(pane.locator("mark[data-passage='1']")).to_be_in_viewport()


def test_the_shown_mark_follows_the_artifact_compared(
    live_server, page, log_in, reviewer, pasted_across_kinds, browser_problems
):
    """Comparing another artifact swaps the comparison alone (htmx): the matches table, outside
    it, marks the artifact now shown, not the one shown before."""
    record = pasted_across_kinds
    matches = list(Match.objects.filter(record=record).select_related("artifact"))
    assert len(matches) == 2
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(f"{live_server.url}/records/{record.pk}/")
    table = page.locator("section[aria-label='Matches']")
    row = {m.artifact.name: table.locator("tr", has_text=m.artifact.name) for m in matches}
    first = page.locator("#comparison h2 a").first.inner_text()
    (other,) = [name for name in row if name != first]
    expect(row[first]).to_contain_text("(shown)")
    expect(row[other]).not_to_contain_text("(shown)")

    row[other].get_by_role("link", name=other).click()
    expect(page.locator("#comparison h2 a").first).to_have_text(other)
    expect(row[other]).to_contain_text("(shown)")
    expect(row[first]).not_to_contain_text("(shown)")
    expect(table).to_have_count(1)
    assert page.locator("[hx-swap-oob]").count() == 0
