"""Files in, items out: walking folders, refusing what is not a file of text, telling the
formats apart by content (never by name), and reading JSON lines one line at a time.

A file is, by its first 64 KB: a JSON document (it parses whole: a ChatGPT export, a list
of messages), JSON lines (its lines are JSON objects, whatever the first few are: a comment
or a header line is a problem and the rest is read), an Aider chat history, or a text
document. Each JSON line is read as the format its shape shows (Claude Code, Codex, chat,
records). Every candidate passes `unstorable` before it leaves.
"""

import json
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from poimen.readers.aider import looks_like_aider, read_aider
from poimen.readers.base import (
    SUSPECT_ESCAPE,
    Candidate,
    FileContext,
    Item,
    Problem,
    oversize,
    too_big,
    unstorable,
)
from poimen.readers.claude_code import claude_code_line, is_claude_code_line
from poimen.readers.codex import codex_line, is_codex_line
from poimen.readers.gemini_cli import is_gemini_cli_session, read_session_lines
from poimen.readers.messages import read_json_document
from poimen.readers.records import chat_line, is_chat_line, is_records_line, records_line
from poimen.readers.text import read_document

SNIFF_BYTES = 64 * 1024
UTF8_BOM = b"\xef\xbb\xbf"
# Bytes that never appear in text (NUL aside: a crash leaves runs of it in text files).
NON_TEXT = bytes(b for b in range(32) if b not in (0, 9, 10, 12, 13, 27)) + b"\x7f"
# Share of non-text bytes (controls, invalid UTF-8) above which a file is refused whole.
BINARY_SHARE = 0.3
SKIP_CHUNK = 1024 * 1024

LINE_FORMATS = (
    (is_codex_line, codex_line),
    (is_claude_code_line, claude_code_line),
    (is_chat_line, chat_line),
    (is_records_line, records_line),
)


def read_sources(
    paths: Iterable[str | os.PathLike],
    *,
    max_record_bytes: int,
    max_document_bytes: int,
    default_source: str | None = None,
) -> Iterator[Item]:
    """Every candidate, problem and skip in `paths` (files, or folders read recursively)."""
    limits = {"max_record_bytes": max_record_bytes, "max_document_bytes": max_document_bytes}
    for path in paths:
        path = Path(path)
        try:
            info = os.stat(path)
        except OSError as error:
            if not os.path.lexists(path):
                yield Problem(str(path), None, "no such file or directory")
            else:
                yield Problem(str(path), None, f"cannot read: {error.strerror or error}")
            continue
        if stat.S_ISDIR(info.st_mode):
            for file, resolved in _files_under(path):
                if isinstance(file, Problem):
                    yield file
                else:
                    hidden = os.path.basename(file).startswith(".")
                    yield from read_file(
                        file,
                        resolved=resolved,
                        default_source=default_source,
                        only_aider=hidden,
                        **limits,
                    )
        else:
            yield from read_file(path, default_source=default_source, **limits)


def _files_under(folder: Path) -> Iterator[tuple[str | Problem, str | None]]:
    """Files in a stable order, hidden folders left out; symbolic links to folders are not
    followed, so a link loop is never entered. Hidden files are read only when they are an
    Aider history (aider writes .aider.chat.history.md): the rest (the manifest) is not input.
    With each file, its real folder: the walk never follows a link, so it is found once."""
    problems = []
    folder = str(folder)
    real = os.path.realpath(folder)
    walk = os.walk(folder, onerror=lambda e: problems.append((_walk_problem(e), None)))
    for root, dirs, files in walk:
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        yield from problems
        problems.clear()
        real_root = real + root[len(folder) :]
        for name in sorted(files):
            yield os.path.join(root, name), os.path.join(real_root, name)
    yield from problems


def _walk_problem(error: OSError) -> Problem:
    return Problem(str(error.filename), None, f"cannot read: {error.strerror or error}")


def read_file(
    path: Path | str,
    *,
    resolved: str | None = None,
    max_record_bytes: int,
    max_document_bytes: int,
    default_source=None,
    only_aider: bool = False,
) -> Iterator[Item]:
    shown = str(path)
    try:
        info = os.stat(path)  # follows links: a loop is an OSError (ELOOP)
        if not stat.S_ISREG(info.st_mode):
            yield Problem(shown, None, "not a regular file (a FIFO, socket or device): not read")
            return
        if resolved is None or stat.S_ISLNK(os.lstat(path).st_mode):
            resolved = os.path.realpath(path)
        ctx = FileContext(shown, resolved, default_source)
        with open(path, "rb") as stream:
            items = _read_stream(
                stream, info.st_size, ctx, max_record_bytes, max_document_bytes, only_aider
            )
            for item in items:
                if isinstance(item, Candidate):
                    # The one per-record limit, whatever the reader (a ChatGPT export's
                    # message, an Aider turn, a document of messages, a line).
                    why = oversize(item.text, max_record_bytes)
                    why = why or unstorable(item, suspect=ctx.suspect)
                    if why:
                        item = ctx.problem(why, line=item.position if ctx.lineno else None)
                yield item
    except OSError as error:
        yield Problem(shown, None, f"cannot read: {error.strerror or error}")


def _read_stream(stream, size, ctx, max_record_bytes, max_document_bytes, only_aider=False):
    # Reads sized by the file: read(n) allocates n bytes whatever the file holds.
    head = stream.read(min(size + 1, SNIFF_BYTES))
    stream.seek(0)
    if only_aider:
        if looks_like_aider(head.decode("utf-8", "replace").splitlines(keepends=True)[:50]):
            yield from read_aider(_text_lines(stream, ctx, max_record_bytes), ctx)
        else:
            yield ctx.skip("hidden file")
        return
    if _is_binary(head):
        yield ctx.problem("binary file (mostly non-text bytes), not read", line=None)
        return
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        yield ctx.problem("UTF-16 text: only UTF-8 is read", line=None)
        return
    lines = head.removeprefix(UTF8_BOM).split(b"\n")
    if len(head) == SNIFF_BYTES and size >= SNIFF_BYTES:
        lines.pop()  # cut short by the sniff
    lines = [line for line in lines if line.strip()]
    first = lines[0].lstrip()[:1] if lines else head.removeprefix(UTF8_BOM).lstrip()[:1]
    json_lines = sum(_is_json_object(line) for line in lines[:50])
    if not lines and first == b"{":
        json_lines = 1  # a first line longer than the sniff: read as a line, and refused
    # An array, or pretty-printed JSON (its first line no object of its own); an object on
    # one line is read as a JSON line, which may be a document of messages.
    if first == b"[" or (first == b"{" and lines and not _is_json_object(lines[0])):
        document = yield from _read_json_document(stream, size, ctx, max_document_bytes)
        if document is not None:
            yield from document
            return
        stream.seek(0)
    if json_lines and lines and is_gemini_cli_session(_json_object(lines[0])):
        # read whole: a message's later line replaces it, a rewind drops messages
        yield from read_session_lines(_json_objects(stream, ctx, max_record_bytes), ctx)
    elif json_lines:
        yield from _read_json_lines(stream, ctx, max_record_bytes)
    elif looks_like_aider([line.decode("utf-8", "replace") for line in lines[:50]]):
        yield from read_aider(_text_lines(stream, ctx, max_record_bytes), ctx)
    else:
        whole = head if size < SNIFF_BYTES else None  # the sniff read it all
        yield from read_document(
            stream, ctx, size=size, max_record_bytes=max_record_bytes, raw=whole
        )


def _is_binary(head: bytes) -> bool:
    if not head:
        return False
    controls = len(head) - len(head.translate(None, NON_TEXT))
    invalid = head.decode("utf-8", "replace").count("\ufffd") - head.count("\ufffd".encode())
    return (controls + invalid) / len(head) > BINARY_SHARE


def _is_json_object(line: bytes) -> bool:
    return _json_object(line) is not None


def _json_object(line: bytes) -> dict | None:
    line = line.strip().removeprefix(UTF8_BOM)
    if not (line.startswith(b"{") and line.endswith(b"}")):
        return None
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _read_json_document(stream, size, ctx, limit):
    """The document's items (None when it is no JSON document after all: a JSON line read
    as one, or not JSON); a problem when it is JSON of no known shape."""
    if size > limit:
        yield ctx.problem(
            f"JSON document of {size / 1e6:.1f} MB exceeds the limit of {limit / 1e6:.1f} MB"
            " (POIMEN_MAX_DOCUMENT_BYTES)",
            line=None,
        )
        return iter(())
    raw = stream.read(size + 1)
    ctx.suspect = SUSPECT_ESCAPE.search(raw) is not None
    try:
        value = json.loads(raw.removeprefix(UTF8_BOM))
    except RecursionError:
        yield ctx.problem("JSON nested too deeply to read", line=None)
        return iter(())
    except ValueError:
        return None
    items = read_json_document(value, ctx)
    if items is None:
        if isinstance(value, dict):
            keys = ", ".join(sorted(value)[:8]) or "none"
            why = f"unknown transcript shape: a JSON document (keys: {keys})"
        else:
            why = "unknown transcript shape: a JSON array of no known format"
        yield ctx.problem(why, line=None)
        return iter(())
    return items


def _lines(stream, ctx: FileContext, limit: int) -> Iterator[bytes | Problem]:
    """Raw lines, numbered in ctx.lineno; a line over `limit` is a problem, skipped in chunks
    so that a line of a gigabyte is never held whole."""
    lineno = 0
    while True:
        raw = stream.readline(limit + 1)
        if not raw:
            return
        lineno += 1
        ctx.lineno = lineno
        if len(raw) > limit and not raw.endswith(b"\n"):
            size = len(raw)
            while True:
                rest = stream.readline(SKIP_CHUNK)
                size += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
            yield ctx.problem(too_big(size, limit))
            continue
        if len(raw) > limit:
            yield ctx.problem(too_big(len(raw), limit))
            continue
        if b"\0" in raw:
            yield ctx.problem("NUL bytes in the line (a crash often leaves them)")
            continue
        yield raw


def _text_lines(stream, ctx, limit) -> Iterator[tuple[int, str] | Problem]:
    for raw in _lines(stream, ctx, limit):
        if isinstance(raw, Problem):
            yield raw
            continue
        try:
            yield ctx.lineno, raw.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError as error:
            yield ctx.problem(f"invalid UTF-8 at byte {error.start} of the line")


def _json_objects(stream, ctx: FileContext, limit: int) -> Iterator[tuple[int, dict] | Problem]:
    """Each line's JSON object with its number, or the problem with the line."""
    for raw in _lines(stream, ctx, limit):
        if isinstance(raw, Problem):
            yield raw
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            yield ctx.problem(f"invalid UTF-8 at byte {error.start} of the line")
            continue
        line = line.removeprefix("\ufeff").strip()  # files saved by some editors start so
        if not line:
            continue
        if line[0] not in "{[":
            try:  # a string or a number is JSON too, only not a record
                what = f"not a JSON object but {type(json.loads(line)).__name__}"
            except (json.JSONDecodeError, RecursionError):
                what = "not JSON (a comment or header line?) among JSON lines"
            yield ctx.problem(what)
            continue
        ctx.suspect = SUSPECT_ESCAPE.search(raw) is not None
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as error:
            yield ctx.problem(f"malformed JSON: {error.msg} at column {error.colno}")
            continue
        except RecursionError:
            yield ctx.problem("JSON nested too deeply to read")
            continue
        if not isinstance(obj, dict):
            yield ctx.problem(f"not a JSON object but {type(obj).__name__}")
            continue
        yield ctx.lineno, obj


def _read_json_lines(stream, ctx: FileContext, limit: int) -> Iterator[Item]:
    for line in _json_objects(stream, ctx, limit):
        if isinstance(line, Problem):
            yield line
            continue
        obj = line[1]
        for recognises, read in LINE_FORMATS:
            if recognises(obj):
                yield from read(obj, ctx)
                break
        else:
            document = read_json_document(obj, ctx)  # a request of messages, on one line
            if document is not None:
                yield from document
                continue
            keys = ", ".join(sorted(obj)[:8]) or "none"
            yield ctx.problem(f"unknown transcript shape (keys: {keys})")
