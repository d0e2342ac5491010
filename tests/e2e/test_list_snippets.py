"""In a real Chromium, a list row whose copy starts 16,000 characters into the record shows
the copy, not the record's unrelated start (issue 24)."""

import json

import pytest
from playwright.sync_api import expect

from poimen.models import Record
from poimen.services import records_ingest
from tests.factories import demo_skill

pytestmark = pytest.mark.e2e

PREAMBLE = "The deploy went out on Tuesday and the cache warmed within the hour as planned. "


def test_a_late_copy_shows_in_its_row(
    page, log_in, live_server, reviewer, desk_data, tmp_path, browser_problems
):
    text = PREAMBLE * 200 + demo_skill("release-notes")
    path = tmp_path / "late.jsonl"
    path.write_text(json.dumps({"id": "late", "role": "assistant", "text": text}) + "\n")
    records_ingest(paths=[path], source="desk-tests")
    record = Record.objects.get(external_id="late")
    log_in("rita", "rita-reviews-things")
    page.goto(f"{live_server.url}/exclusions/")
    snippet = page.locator(f"#row-{record.pk} td.snippet")
    expect(snippet).to_contain_text("…")
    assert "deploy went out" not in snippet.inner_text().split("…", 1)[1][:80]
    expect(snippet).to_contain_text(demo_skill("release-notes").split()[1])
