"""The word diff in a real Chromium: a skill read with line numbers (`  3→description:`) or
path prefixes (`SKILL.md:3:`) is a verbatim copy, and its passage marks no word on either
side; a word the reader's copy changed is marked on both."""

import json

import pytest
from playwright.sync_api import expect

from poimen.models import Record
from poimen.services import records_ingest
from tests.factories import demo_skill

pytestmark = pytest.mark.e2e

REVIEWER_PASSWORD = "rita-reviews-things"


def _ingest(tmp_path, source: str, text: str) -> Record:
    path = tmp_path / f"{source}.jsonl"
    path.write_text(json.dumps({"id": source, "text": text}) + "\n", encoding="utf-8")
    records_ingest(paths=[path], source=source)
    return Record.objects.get(source=source)


@pytest.mark.parametrize(
    "prefix",
    [lambda n: f"{n:>6}→", lambda n: f"skills/release-notes/SKILL.md:{n}:"],
    ids=["gutter", "path"],
)
def test_a_copy_read_with_prefixes_shows_no_word_changes(
    live_server, page, log_in, reviewer, desk_data, tmp_path, prefix, browser_problems
):
    lines = demo_skill("release-notes").splitlines()
    read = _ingest(
        tmp_path, "read", "".join(f"{prefix(n)}{line}\n" for n, line in enumerate(lines, 1))
    )
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(f"{live_server.url}/records/{read.pk}/")
    expect(page.locator("[data-pane='record'] mark[data-passage='1']").first).to_be_visible()
    expect(page.locator(".word-change")).to_have_count(0)


def test_a_word_changed_behind_line_numbers_is_marked_on_both_sides(
    live_server, page, log_in, reviewer, desk_data, tmp_path, browser_problems
):
    lines = demo_skill("release-notes").replace("upgrade", "migrate", 1).splitlines()
    read = _ingest(tmp_path, "read", "".join(f"{n:>6}→{line}\n" for n, line in enumerate(lines, 1)))
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(f"{live_server.url}/records/{read.pk}/")
    expect(page.locator("[data-pane='record'] ins.word-change")).to_have_text(["migrate"])
    expect(page.locator("[data-pane='artifact'] del.word-change")).to_have_text(["upgrade"])
