"""`ingest` of the folders agents write (issue 21): a Claude Code 2.1 session with its
sub-agents' and its compaction sub-agent's files, Gemini CLI sessions in both forms and a Cline
task folder end with exit 0 and store as many records as an independent count of the files."""

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from poimen.models import Record

pytestmark = pytest.mark.django_db
TRANSCRIPTS = Path(__file__).resolve().parent.parent / "texts" / "transcripts"
CLAUDE = TRANSCRIPTS / "claude-code-2.1"
SESSION = "9e8d7c6b-5a49-4382-a1b0-c9d8e7f6a5b4"


def claude_code_count(path: Path) -> int:
    """Records in a Claude Code file, counted without poimen's reader: the text blocks and
    the tool results with text, of the user and assistant lines."""
    count = 0
    for line in map(json.loads, path.read_text().splitlines()):
        if line.get("type") not in ("user", "assistant"):
            continue
        content = line["message"]["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            body = block.get("text") if block["type"] == "text" else block.get("content")
            if block["type"] in ("text", "tool_result") and body:
                count += 1
    return count


def test_the_agents_folders_ingest_with_exit_0_and_every_record():
    out = io.StringIO()
    folders = [CLAUDE, TRANSCRIPTS / "gemini-cli", TRANSCRIPTS / "cline"]

    call_command("ingest", *map(str, folders), stdout=out, stderr=io.StringIO())  # no exit 2

    claude_files = sorted(CLAUDE.rglob("*.jsonl"))
    assert len(claude_files) == 3  # the session, a sub-agent, the compaction sub-agent
    expected = {
        "claude-code": sum(map(claude_code_count, claude_files)),
        # the readers' tests count these two independently (tests/readers)
        "gemini-cli": 6 + 4,
        "messages": 7,
    }
    stored = {source: Record.objects.filter(source=source).count() for source in expected}
    assert stored == expected
    assert "errors" not in out.getvalue() or "errors 0" in out.getvalue()
    sub_agents = Record.objects.filter(source="claude-code").exclude(metadata__agent=None)
    assert {r.metadata["agent"] for r in sub_agents} == {"a3f9c1d2", "acompact-5b7e21"}
    assert {r.session for r in Record.objects.filter(source="claude-code")} == {SESSION}
