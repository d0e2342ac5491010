"""ingest's summary counts skips by what they were; --verbose lists them by line."""

from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from poimen.models import IngestRun

pytestmark = pytest.mark.django_db

SESSION = (
    Path(__file__).resolve().parent.parent
    / "texts"
    / "transcripts"
    / "claude-code"
    / "3c1e9f4a-7b2d-4e8f-a6c5-0d9b8e7f6a51.jsonl"
)


def test_the_summary_breaks_down_what_was_skipped():
    out = StringIO()
    call_command("ingest", str(SESSION), stdout=out)
    assert (
        "skipped 11 (tool_use block 4, file-history-snapshot line 1, thinking block 1, "
        "system line 1, image block 1, queue-operation line 1, progress line 1, summary line 1)"
    ) in out.getvalue()


def test_verbose_lists_each_skip_by_line():
    out = StringIO()
    call_command("ingest", str(SESSION), "--verbose", stdout=out)
    lines = out.getvalue().splitlines()
    assert f"{SESSION}:1: skipped file-history-snapshot line" in lines
    assert f"{SESSION}:3: skipped thinking block" in lines
    assert sum(line.startswith(f"{SESSION}:") for line in lines) == 11


def test_bad_lines_end_the_run_with_its_summary_and_exit_2(tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"# header\n" + SESSION.read_bytes() + b"\0\0\0\0\n")
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("ingest", str(path), stdout=out, stderr=err)
    assert raised.value.returncode == 2
    assert err.getvalue().splitlines() == [
        f"{path}:1: not JSON (a comment or header line?) among JSON lines",
        f"{path}:21: NUL bytes in the line (a crash often leaves them)",
    ]
    assert "new 10," in out.getvalue() and "errors 2" in out.getvalue()


def test_the_desk_marks_a_run_that_stopped_without_finishing(client, reviewer):
    stale = timezone.now() - IngestRun.STALE_AFTER - timedelta(minutes=1)
    IngestRun.objects.create(source="laptop", last_batch_at=stale)
    client.force_login(reviewer)
    page = client.get("/runs/").content.decode()
    assert ">unfinished</span>" in page and "running" not in page.split("<tbody>")[1]
