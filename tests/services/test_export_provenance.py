"""The export carries each record's provenance (issue 21): format, session, role, tool, turn,
sub-agent, timestamp and path:line, from what its reader said; its text only when asked
(`export_records --with-text`, the desk's "with text" downloads)."""

import io
import json
from pathlib import Path

from django.core.management import call_command
from django.urls import reverse

from poimen.services import EXPORT_FIELD_NAMES, records_ingest

TRANSCRIPTS = Path(__file__).resolve().parent.parent / "texts" / "transcripts"
GEMINI = TRANSCRIPTS / "gemini-cli" / "session-2026-11-30T12-00-e2d7c1b0.jsonl"
AGENT = TRANSCRIPTS / "claude-code" / "agent-a7f3c2e1.jsonl"


def exported(*options) -> list[dict]:
    out = io.StringIO()
    call_command("export_records", *options, stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_each_record_s_provenance_is_exported(db):
    records_ingest(paths=[GEMINI, AGENT])

    rows = {row["id"]: row for row in exported()}

    read = rows["e2d7c1b0-9a8f-4e6d-8c5b-3a2f1e0d9c8b/c0ffee00-0002/read_file-1764504005123-8f2a1c"]
    assert {name: read[name] for name in EXPORT_FIELD_NAMES[-8:]} == {
        "format": "gemini-cli",
        "session": "e2d7c1b0-9a8f-4e6d-8c5b-3a2f1e0d9c8b",
        "role": "tool",
        "tool": "read_file",
        "turn": 0,
        "agent": None,
        "timestamp": "2026-11-30T12:00:04.000Z",
        "location": f"{GEMINI.resolve()}:4",
    }
    sub_agent = [row for row in rows.values() if row["format"] == "claude-code"]
    assert sub_agent and {row["agent"] for row in sub_agent} == {"a7f3c2e1"}
    assert all(row["location"].startswith(f"{AGENT.resolve()}:") for row in sub_agent)
    assert "text" not in read


def test_with_text_the_record_s_text_is_the_last_field(db):
    records_ingest(paths=[GEMINI])

    rows = exported("--with-text")
    csv_header = io.StringIO()
    call_command("export_records", "--with-text", "--format", "csv", stdout=csv_header)

    assert all(list(row) == [*EXPORT_FIELD_NAMES, "text"] for row in rows)
    assert any(row["text"].startswith("---\nname: postgres-migrations") for row in rows)
    assert csv_header.getvalue().splitlines()[0].endswith(",location,text")


def test_the_desk_offers_the_export_with_text(client, desk_data, reviewer):
    client.force_login(reviewer)
    page = client.get(reverse("export")).content.decode()
    assert "with_text=1" in page and "JSONL with text" in page

    query = {"list": "exclusions", "format": "jsonl", "download": "1", "with_text": "1"}
    response = client.get(reverse("export"), query)
    rows = [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]
    assert rows and all(list(row)[-1] == "text" and row["text"] for row in rows)
