"""A list row's snippet opens at the record's first copied passage, not at its start: a row
whose copy begins 16,000 characters in shows the copy (issue 24)."""

import json

import pytest
from django.urls import reverse

from poimen.models import Record
from poimen.services import records_ingest
from tests.factories import demo_skill

pytestmark = pytest.mark.django_db


@pytest.fixture
def late_copy(desk_data, tmp_path):
    words = "The deploy went out on Tuesday and the cache warmed within the hour as planned. "
    preamble = words * (16_000 // len(words) + 1)
    text = preamble + demo_skill("release-notes")
    path = tmp_path / "late.jsonl"
    path.write_text(json.dumps({"id": "late", "role": "assistant", "text": text}) + "\n")
    records_ingest(paths=[path], source="desk-tests")
    record = Record.objects.get(external_id="late")
    assert record.status in ("excluded", "redacted")
    return record, len(preamble)


def row_of(html: str, record_id: int) -> str:
    row = html[html.index(f'id="row-{record_id}"') :]
    return row[: row.index("</tr>")]


def test_a_late_copy_is_shown_at_its_first_passage(logged_in, late_copy):
    record, preamble = late_copy
    response = logged_in.get(reverse("exclusions"))
    row = next(r for r in response.context["page"].items if r.pk == record.pk)
    assert row.snippet_from > preamble - 200  # a little before the copy, never the start
    shown = row_of(response.content.decode(), record.pk)
    assert "…" in shown
    assert demo_skill("release-notes")[:20].split()[0] in shown


def test_a_record_copied_from_its_start_is_shown_from_its_start(logged_in, desk_data):
    response = logged_in.get(reverse("exclusions"))
    verbatim = next(r for r in response.context["page"].items if r.external_id == "verbatim")
    assert verbatim.snippet_from == 1
