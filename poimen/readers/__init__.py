"""Source readers: files in, candidate records out, each format recognised by its content.

Formats (the default source label of their records): records JSONL (`records`), chat lines
(`chat`), Claude Code sessions (`claude-code`), Codex CLI rollouts (`codex`), Aider chat
histories (`aider`), ChatGPT's conversations.json (`chatgpt`), JSON documents of messages
(`messages`, `gemini`), and any other text file, one record (`document`). Everything wrong
with the input becomes a `Problem` ("path:line: why") and the reading goes on; ids are stable,
so reading the same input again yields the same ids.

May import: nothing (readers know nothing of Django: the hook runs them where the server is not).
"""

from poimen.readers.base import (
    MAX_EXTERNAL_ID,
    MAX_SOURCE,
    Candidate,
    Item,
    Problem,
    Skipped,
    content_sha256,
    record_keys,
    source_label_problem,
)
from poimen.readers.claude_code import COMPACT_SUMMARY
from poimen.readers.sniff import read_file, read_sources

__all__ = [
    "COMPACT_SUMMARY",
    "MAX_EXTERNAL_ID",
    "MAX_SOURCE",
    "Candidate",
    "Item",
    "Problem",
    "Skipped",
    "content_sha256",
    "read_file",
    "read_sources",
    "record_keys",
    "source_label_problem",
]
