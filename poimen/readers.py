"""Source readers: files in, candidate records out, recognised by their content, not their name.

Four shapes are understood:
- records JSONL: {"id", "text", optional "source", "role", "session", "metadata"} a line;
- chat transcripts JSONL: {"role", "content"} a line, content a string or a list of blocks;
- coding-agent session files: {"type": "user"|"assistant", "sessionId", "uuid",
  "message": {"role", "content"}} lines; text blocks and tool_result blocks become records,
  other line types and other blocks are skipped and counted;
- any other text file (.md, .txt, ...): one record.

Everything wrong with the input becomes a `Problem` ("path:line: why") and the reading goes
on. External ids are stable, so reading the same input again yields the same ids.
"""

import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

# Formats, also the default source label of records that carry none.
RECORDS, CHAT, AGENT, DOCUMENT = "records", "chat", "agent", "document"

AGENT_MESSAGE_TYPES = frozenset({"user", "assistant"})
CHAT_TEXT_BLOCKS = frozenset({"text", "input_text", "output_text"})
BINARY_SNIFF_BYTES = 8192
UTF8_BOM = b"\xef\xbb\xbf"
# Record.external_id and Record.source column sizes; a path-based id leaves room for its hash.
MAX_EXTERNAL_ID, MAX_SOURCE = 500, 255
MAX_PATH_KEY = MAX_EXTERNAL_ID - 40


@dataclass(frozen=True, slots=True)
class Candidate:
    """A record as read from a source, before the filter has seen it."""

    source: str
    external_id: str
    source_path: str
    position: int | None
    session: str
    role: str
    text: str
    metadata: dict = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Problem:
    """Input that could not be read, with where it is and why."""

    path: str
    line: int | None
    why: str

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.why}"


@dataclass(frozen=True, slots=True)
class Skipped:
    """Something deliberately not read as a record (a summary line, a thinking block)."""

    what: str


Item = Candidate | Problem | Skipped


def content_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_sources(
    paths: Iterable[str | os.PathLike],
    *,
    max_record_bytes: int,
    default_source: str | None = None,
) -> Iterator[Item]:
    """Every candidate, problem and skip in `paths` (files, or folders read recursively)."""
    for path in paths:
        path = Path(path)
        if not path.exists():
            yield Problem(str(path), None, "no such file or directory")
        elif path.is_dir():
            for file in _files_under(path):
                yield from read_file(
                    file, max_record_bytes=max_record_bytes, default_source=default_source
                )
        else:
            yield from read_file(
                path, max_record_bytes=max_record_bytes, default_source=default_source
            )


def _files_under(folder: Path) -> list[Path]:
    # Sorted, so that a re-run reads in the same order; hidden files (the manifest) are not input.
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(Path(root) / f for f in sorted(files) if not f.startswith("."))
    return found


def read_file(
    path: Path, *, max_record_bytes: int, default_source: str | None = None
) -> Iterator[Item]:
    shown = str(path)
    resolved = str(path.resolve())
    try:
        with open(path, "rb") as stream:
            head = stream.read(BINARY_SNIFF_BYTES)
            if b"\0" in head:
                yield Problem(shown, None, "binary file (NUL bytes), not read")
                return
            stream.seek(0)
            first = head.removeprefix(UTF8_BOM).lstrip()[:1]
            if first == b"[" and _is_json_array(stream, max_record_bytes):
                yield Problem(shown, None, "unknown transcript shape: a JSON array, not JSON lines")
                return
            stream.seek(0)
            if first == b"{":
                yield from _read_jsonl(
                    stream,
                    shown,
                    resolved,
                    max_record_bytes=max_record_bytes,
                    default_source=default_source,
                )
            else:
                yield from _read_document(
                    stream,
                    shown,
                    resolved,
                    max_record_bytes=max_record_bytes,
                    default_source=default_source,
                )
    except OSError as error:
        yield Problem(shown, None, f"cannot read: {error.strerror or error}")


def _is_json_array(stream, max_record_bytes: int) -> bool:
    try:
        return isinstance(json.loads(stream.read(max_record_bytes + 1)), list)
    except ValueError:  # not JSON (or not UTF-8): a text document that starts with "["
        return False


def _too_big(size: int, limit: int) -> str:
    return (
        f"record of {size / 1e6:.1f} MB exceeds the limit of {limit / 1e6:.1f} MB"
        " (POIMEN_MAX_RECORD_BYTES)"
    )


def _read_document(stream, shown, resolved, *, max_record_bytes, default_source) -> Iterator[Item]:
    raw = stream.read(max_record_bytes + 1)
    if len(raw) > max_record_bytes:
        size = os.fstat(stream.fileno()).st_size
        yield Problem(shown, None, _too_big(size, max_record_bytes))
        return
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        yield Problem(shown, None, f"invalid UTF-8 at byte {error.start}")
        return
    if not text.strip():
        yield Problem(shown, None, "empty text")
        return
    sha = content_sha256(text)
    yield Candidate(
        source=default_source or DOCUMENT,
        external_id=f"{_path_key(resolved)}#{sha[:16]}",
        source_path=resolved,
        position=None,
        session="",
        role="",
        text=text,
    )


def _read_jsonl(stream, shown, resolved, *, max_record_bytes, default_source) -> Iterator[Item]:
    seen: dict[str, int] = {}
    for lineno, raw in enumerate(stream, start=1):
        if len(raw) > max_record_bytes:
            yield Problem(shown, lineno, _too_big(len(raw), max_record_bytes))
            continue
        try:
            line = raw.decode("utf-8")
            if lineno == 1:
                line = line.removeprefix("\ufeff")  # files saved by some editors start so
        except UnicodeDecodeError as error:
            yield Problem(shown, lineno, f"invalid UTF-8 at byte {error.start} of the line")
            continue
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as error:
            yield Problem(shown, lineno, f"malformed JSON: {error.msg} at column {error.colno}")
            continue
        if not isinstance(obj, dict):
            yield Problem(shown, lineno, f"not a JSON object but {type(obj).__name__}")
            continue
        where = _Where(shown, resolved, lineno, default_source, seen)
        if _is_agent_line(obj):
            yield from _agent_line(obj, where)
        elif "role" in obj and "content" in obj:
            yield from _chat_line(obj, where)
        elif "text" in obj or "id" in obj:
            yield from _records_line(obj, where)
        else:
            keys = ", ".join(sorted(obj)[:8]) or "none"
            yield Problem(shown, lineno, f"unknown transcript shape (keys: {keys})")


@dataclass(slots=True)
class _Where:
    shown: str
    resolved: str
    lineno: int
    default_source: str | None
    seen: dict[str, int]

    @property
    def stem(self) -> str:
        return Path(self.resolved).stem

    def problem(self, why: str) -> Problem:
        return Problem(self.shown, self.lineno, why)


def _is_agent_line(obj: dict) -> bool:
    return isinstance(obj.get("type"), str) and any(
        key in obj for key in ("sessionId", "uuid", "message", "leafUuid", "messageId")
    )


def _records_line(obj: dict, where: _Where) -> Iterator[Item]:
    record_id, text = obj.get("id"), obj.get("text")
    if record_id is None or isinstance(record_id, bool) or not isinstance(record_id, str | int):
        yield where.problem('a records line needs an "id" (a string or an integer)')
        return
    if "text" not in obj:
        yield where.problem('line without "text"')
        return
    if not isinstance(text, str):
        yield where.problem(f'"text" is {type(text).__name__}, not a string')
        return
    if not text.strip():
        yield where.problem("empty text")
        return
    if len(str(record_id)) > MAX_EXTERNAL_ID:
        yield where.problem(f'"id" is longer than {MAX_EXTERNAL_ID} characters')
        return
    source = obj.get("source")
    if isinstance(source, str) and len(source) > MAX_SOURCE:
        yield where.problem(f'"source" is longer than {MAX_SOURCE} characters')
        return
    metadata = obj.get("metadata")
    yield Candidate(
        source=source if isinstance(source, str) and source else where.default_source or RECORDS,
        external_id=str(record_id),
        source_path=where.resolved,
        position=where.lineno,
        session=_str(obj.get("session")),
        role=_str(obj.get("role")),
        text=text,
        metadata=metadata if isinstance(metadata, dict) else {},
    )


def _chat_line(obj: dict, where: _Where) -> Iterator[Item]:
    content = obj["content"]
    if content is None:
        yield Skipped("chat message without content")
        return
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts = []
        for block in content:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind in CHAT_TEXT_BLOCKS and isinstance(block.get("text"), str):
                parts.append(block["text"])
            else:
                yield Skipped(f"{kind or 'untyped'} block")
        if not parts:
            return
        text = "\n\n".join(parts)
    else:
        yield where.problem(f'"content" is {type(content).__name__}, not text or blocks')
        return
    if not text.strip():
        yield where.problem("empty text")
        return
    own_id = obj.get("id")
    if isinstance(own_id, str | int) and not isinstance(own_id, bool) and own_id != "":
        external_id = str(own_id)
    else:
        # No id of its own: the file and what the message says (and which repeat of it), not
        # its line number, so deleting a broken line before it changes no other message's id.
        sha = content_sha256(text)[:16]
        repeat = where.seen.get(sha, 0)
        where.seen[sha] = repeat + 1
        external_id = f"{_path_key(where.resolved)}#{sha}" + (f"~{repeat}" if repeat else "")
    yield Candidate(
        source=where.default_source or CHAT,
        external_id=external_id,
        source_path=where.resolved,
        position=where.lineno,
        session=_str(obj.get("session") or obj.get("conversation_id")) or where.stem,
        role=_str(obj["role"]),
        text=text,
    )


def _agent_line(obj: dict, where: _Where) -> Iterator[Item]:
    line_type = obj["type"]
    if line_type not in AGENT_MESSAGE_TYPES:
        yield Skipped(f"{line_type} line")
        return
    message, uuid = obj.get("message"), obj.get("uuid")
    if not isinstance(message, dict):
        yield where.problem(f'a "{line_type}" line without a "message" object')
        return
    if not isinstance(uuid, str) or not uuid:
        yield where.problem(f'a "{line_type}" line without a "uuid"')
        return
    if len(uuid) + len(_str(obj.get("sessionId"))) > MAX_EXTERNAL_ID - 20:
        yield where.problem(f'"sessionId" and "uuid" are longer than {MAX_EXTERNAL_ID} characters')
        return
    session = _str(obj.get("sessionId"))
    role = _str(message.get("role")) or line_type
    content = message.get("content")
    if isinstance(content, str):
        blocks = [{"type": "text", "text": content}]
    elif isinstance(content, list):
        blocks = content
    else:
        yield where.problem('"message.content" is neither text nor a list of blocks')
        return
    for index, block in enumerate(blocks):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            text, block_role = block.get("text"), role
        elif kind == "tool_result":
            text = yield from _tool_result_text(block.get("content"))
            block_role = "tool"
        else:
            yield Skipped(f"{kind or 'untyped'} block")
            continue
        if not isinstance(text, str) or not text.strip():
            yield Skipped(f"empty {kind} block")
            continue
        metadata = {"uuid": uuid, "block": index, "block_type": kind}
        if isinstance(obj.get("timestamp"), str):
            metadata["timestamp"] = obj["timestamp"]
        if kind == "tool_result" and isinstance(block.get("tool_use_id"), str):
            metadata["tool_use_id"] = block["tool_use_id"]
        yield Candidate(
            source=where.default_source or AGENT,
            external_id=f"{session}/{uuid}/{index}",
            source_path=where.resolved,
            position=where.lineno,
            session=session,
            role=block_role,
            text=text,
            metadata=metadata,
        )


def _tool_result_text(content) -> Iterator[Skipped]:
    """A generator whose return value is the result's text; it yields the blocks it skips."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        else:
            yield Skipped(f"{kind or 'untyped'} block in a tool result")
    return "\n".join(parts)


def _path_key(resolved: str) -> str:
    """A file's part of an external id: its path, or a digest of a path too long to store."""
    if len(resolved) <= MAX_PATH_KEY:
        return resolved
    return "path-sha256:" + content_sha256(resolved)


def _str(value) -> str:
    return value if isinstance(value, str) else ""
