"""Bad input: reported with file and line, counted, the good lines kept; after the input is
fixed, a re-run gives the same database as a clean run of the fixed input."""

import json

import pytest

from poimen.models import IngestRun, Record
from poimen.services import records_ingest
from tests.factories import clean_run_of, demo_skill, ingested_snapshot

pytestmark = pytest.mark.django_db

COPY = json.dumps({"id": "a", "text": demo_skill("release-notes")}).encode()
LAST = json.dumps({"id": "c", "text": "Lee reviews the notes today."}).encode()
FIXED = json.dumps({"id": "b", "text": "Second note, café included."}).encode()

# case -> (the bad line 2, what the problem says)
BAD_LINES = {
    "malformed JSON": (b'{"id": "b", "text": "Second note', ":2: malformed JSON"),
    "line without text": (b'{"id": "b"}', ':2: line without "text"'),
    "empty text": (b'{"id": "b", "text": "   "}', ":2: empty text"),
    "invalid UTF-8": (
        b'{"id": "b", "text": "Second note, caf\xe9 included."}',
        ":2: invalid UTF-8",
    ),
    "10 MB record": (
        json.dumps({"id": "b", "text": "word " * 2_000_000}).encode(),
        ":2: record of 10.0 MB exceeds the limit of 1.0 MB",
    ),
    "unknown transcript shape": (
        b'{"speaker": "lee", "said": "Second note"}',
        ":2: unknown transcript shape (keys: said, speaker)",
    ),
}


@pytest.fixture
def skill(make_artifact):
    return make_artifact(name="release-notes")


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_bad_line_is_reported_the_rest_ingested_and_a_fixed_rerun_is_a_clean_run(
    case, skill, tmp_path
):
    bad_line, says = BAD_LINES[case]
    path = tmp_path / "records.jsonl"
    path.write_bytes(b"\n".join([COPY, bad_line, LAST]) + b"\n")

    result = records_ingest(paths=[path])
    assert result.errors == 1
    assert result.problems[0].startswith(f"{path}{says}")
    assert (result.new, Record.objects.count()) == (2, 2)
    assert Record.objects.get(external_id="a").status == "excluded"

    path.write_bytes(b"\n".join([COPY, FIXED, LAST]) + b"\n")
    rerun = records_ingest(paths=[path])
    assert (rerun.errors, rerun.new, rerun.already) == (0, 1, 2)
    assert ingested_snapshot() == clean_run_of([path])


def test_binary_file_is_reported_and_a_fixed_rerun_is_a_clean_run(skill, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "records.jsonl").write_bytes(COPY + b"\n" + LAST + b"\n")
    (folder / "notes.md").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)) * 8)

    result = records_ingest(paths=[folder])
    assert result.errors == 1
    assert result.problems == [
        f"{folder / 'notes.md'}: binary file (mostly non-text bytes), not read"
    ]
    assert result.new == 2

    (folder / "notes.md").write_text("# Notes\n\nThe real notes.\n", encoding="utf-8")
    assert records_ingest(paths=[folder]).new == 1
    assert ingested_snapshot() == clean_run_of([folder])


def test_missing_path_is_reported_and_a_fixed_rerun_is_a_clean_run(skill, tmp_path):
    present, missing = tmp_path / "records.jsonl", tmp_path / "later.jsonl"
    present.write_bytes(COPY + b"\n")

    result = records_ingest(paths=[present, missing])
    assert result.problems == [f"{missing}: no such file or directory"]
    assert (result.errors, result.new) == (1, 1)

    missing.write_bytes(LAST + b"\n")
    assert records_ingest(paths=[present, missing]).new == 1
    assert ingested_snapshot() == clean_run_of([present, missing])


def test_problems_are_passed_on_as_they_are_found(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"{bad\n" + LAST + b"\n")
    seen = []
    records_ingest(paths=[path], on_problem=seen.append)
    assert seen == [
        f"{path}:1: malformed JSON: Expecting property name enclosed in double quotes at column 2"
    ]
    assert IngestRun.objects.get().counts["errors"] == 1
