"""Every bad input of issue 8 is a `path:line: why` problem, counted; every good line of the
same file and run is stored; a re-run after fixing the input gives what a clean run gives."""

import json
import os

import pytest

from poimen.models import IngestRun, Record
from poimen.services import records_ingest
from tests.factories import clean_run_of, demo_skill, ingested_snapshot

pytestmark = pytest.mark.django_db

COPY = json.dumps({"id": "a", "text": demo_skill("release-notes")}).encode()
LAST = json.dumps({"id": "c", "text": "Lee reviews the notes today."}).encode()
FIXED = json.dumps({"id": "b", "text": "Second note, café included."}).encode()
DEEP = 100_000

# case -> (the bad line 2, what the problem says)
BAD_LINES = {
    "NUL bytes a crash left": (b"\0" * 4096, ":2: NUL bytes in the line"),
    "NUL bytes inside a line": (
        b'{"id": "b", "text": "Second note\0\0\0',
        ":2: NUL bytes in the line",
    ),
    "a comment line": (
        b"# exported by sessions-dump 1.4 on 2026-11-30",
        ":2: not JSON (a comment or header line?) among JSON lines",
    ),
    "lone surrogate in the text": (
        b'{"id": "b", "text": "Second note \\ud800 caf\\u00e9"}',
        ":2: holds a lone surrogate (\\ud800): not valid Unicode",
    ),
    "lone surrogate in the id": (
        b'{"id": "b\\udfff", "text": "Second note"}',
        ":2: holds a lone surrogate (\\udfff): not valid Unicode",
    ),
    "escaped NUL in the text": (
        b'{"id": "b", "text": "Second\\u0000note"}',
        ":2: holds a NUL character (\\u0000), which is never stored",
    ),
    "escaped NUL in the id": (
        b'{"id": "b\\u0000", "text": "Second note"}',
        ":2: holds a NUL character",
    ),
    "escaped NUL in the session": (
        b'{"id": "b", "text": "Second note", "session": "s\\u0000"}',
        ":2: holds a NUL character",
    ),
    "escaped NUL in the metadata": (
        b'{"id": "b", "text": "Second note", "metadata": {"tool\\u0000": "Read"}}',
        ":2: holds a NUL character",
    ),
    "JSON nested 100,000 deep": (
        b'{"id": "b", "text": "x", "metadata": {"m": ' + b"[" * DEEP + b"]" * DEEP + b"}}",
        ":2: JSON nested too deeply to read",
    ),
    "metadata nested 40 deep": (
        b'{"id": "b", "text": "x", "metadata": {"m": ' + b"[" * 40 + b"]" * 40 + b"}}",
        ":2: metadata nested deeper than 32 levels",
    ),
}


@pytest.fixture
def skill(make_artifact):
    return make_artifact(name="release-notes")


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_bad_line_is_a_problem_the_rest_is_stored_and_a_fixed_rerun_is_a_clean_run(
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
    assert IngestRun.objects.get().finished_at is not None

    path.write_bytes(b"\n".join([COPY, FIXED, LAST]) + b"\n")
    rerun = records_ingest(paths=[path])
    assert (rerun.errors, rerun.new, rerun.already) == (0, 1, 2)
    assert ingested_snapshot() == clean_run_of([path])


def test_a_header_line_before_claude_code_lines_is_a_problem_and_the_session_is_read(
    skill, tmp_path
):
    session = {
        "type": "user",
        "sessionId": "s1",
        "uuid": "u1",
        "message": {"role": "user", "content": demo_skill("release-notes")},
    }
    path = tmp_path / "session.log"
    path.write_text("// exported from ~/.claude/projects\n" + json.dumps(session) + "\n", "utf-8")
    result = records_ingest(paths=[path])
    assert result.problems == [f"{path}:1: not JSON (a comment or header line?) among JSON lines"]
    record = Record.objects.get()
    assert (record.source, record.status, record.identity) == (
        "claude-code",
        "excluded",
        "claude-code:s1/u1/0",
    )


def test_nul_bytes_in_a_text_document_are_a_problem_where_they_are(tmp_path):
    path = tmp_path / "notes.md"
    path.write_bytes(b"# Notes\n\nline two\n\0\0\0\0 crash\n")
    result = records_ingest(paths=[path])
    assert result.problems == [
        f"{path}:4: NUL bytes in the text (a crash often leaves them): not stored"
    ]


def test_a_line_over_the_limit_is_refused_and_the_next_read(settings, tmp_path):
    settings.POIMEN_MAX_RECORD_BYTES = 10_000
    path = tmp_path / "records.jsonl"
    big = json.dumps({"id": "big", "text": "word " * 1_000_000}).encode()
    path.write_bytes(big + b"\n" + LAST + b"\n")
    result = records_ingest(paths=[path])
    assert result.problems == [
        f"{path}:1: record of 5.0 MB exceeds the limit of 0.0 MB (POIMEN_MAX_RECORD_BYTES)"
    ]
    assert list(Record.objects.values_list("external_id", flat=True)) == ["c"]


def test_symlink_loops_and_fifos_in_a_folder_are_problems_not_a_hang(tmp_path):
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "records.jsonl").write_bytes(LAST + b"\n")
    os.symlink(folder, folder / "sub" / "back")  # a folder loop: never followed
    os.symlink(folder / "self", folder / "self")  # a file link to itself
    os.mkfifo(folder / "pipe")
    result = records_ingest(paths=[folder])
    assert sorted(result.problems) == [
        f"{folder / 'pipe'}: not a regular file (a FIFO, socket or device): not read",
        f"{folder / 'self'}: cannot read: Too many levels of symbolic links",
    ]
    assert result.new == 1


def test_a_path_that_is_a_symlink_loop_is_a_problem(tmp_path):
    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    result = records_ingest(paths=[loop])
    assert result.problems == [f"{loop}: cannot read: Too many levels of symbolic links"]
