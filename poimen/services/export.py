"""The one exporter: records and their decisions as CSV or JSONL, for the desk's download of a
filtered list and for `export_records` (every record). One field list, one meaning of "id"
(the external id; poimen's primary key is "record_pk"), documented where it is defined: the
export page lists EXPORT_FIELDS, the export_records paragraph of docs/operators.md names the
same (tests/services/test_export.py holds them equal)."""

import csv
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from io import StringIO
from typing import TextIO

from django.db.models import QuerySet

from filter.redaction import CUT_MARKER
from poimen import selectors
from poimen.models import Record
from poimen.services.common import InputError


@dataclass(frozen=True)
class ExportField:
    name: str
    meaning: str
    value: Callable[[Record], object]


def _best(record: Record, attribute: str):
    return getattr(record.best_artifact, attribute) if record.best_artifact else None


def _said(record: Record, key: str):
    """What the record's reader (or the hook) said of it in its metadata, or None."""
    value = record.metadata.get(key) if isinstance(record.metadata, dict) else None
    return None if value in ("", None) else value


def _location(record: Record) -> str | None:
    """path:line of the record in its source file (the hook's records: the transcript it
    read); the path alone where no line applies, None when neither is known."""
    path = record.source_path or _said(record, "transcript")
    line = record.position if record.position is not None else _said(record, "line")
    if not path:
        return None
    return path if line is None else f"{path}:{line}"


# The provenance fields: what the readers know of where a record came from
# (poimen/readers/base.py, FileContext.candidate), each null where its source does not say.
PROVENANCE_FIELDS = (
    ExportField("format", "the transcript format it was read from", lambda r: _said(r, "format")),
    ExportField(
        "session", "the session (or conversation) it belongs to", lambda r: r.session or None
    ),
    ExportField("role", "user, assistant, tool, system, context ...", lambda r: r.role or None),
    ExportField(
        "tool",
        "the tool whose output it is (Read, Bash, shell, read_file)",
        lambda r: _said(r, "tool"),
    ),
    ExportField(
        "turn",
        "where the source counts turns, 0 first: Claude Code its user and assistant lines, "
        "Codex its turn_context lines and Gemini CLI its user messages (turns of the "
        "conversation), ChatGPT, message documents and Continue their messages",
        lambda r: _said(r, "turn"),
    ),
    ExportField("agent", "the sub-agent whose transcript it is in", lambda r: _said(r, "agent")),
    ExportField(
        "timestamp", "when the source says it was written", lambda r: _said(r, "timestamp")
    ),
    ExportField(
        "location", "path:line in its source file (a JSON document: path:message)", _location
    ),
)


EXPORT_FIELDS = (
    ExportField("id", "the record's external id, as its source named it", lambda r: r.external_id),
    ExportField("record_pk", "poimen's key for the record (/records/<record_pk>/)", lambda r: r.pk),
    ExportField("source", "the source label it was ingested under", lambda r: r.source),
    ExportField(
        "status",
        "evidence, redacted or excluded: what holds (a reviewer's verdict, else the filter's "
        "decision); a redacted record's evidence is its evidence_text, never its text",
        lambda r: r.status,
    ),
    ExportField(
        "evidence_text",
        "a redacted record's text with each copied passage replaced by a marker such as "
        f"{CUT_MARKER.format(length=412)!r}, or null when the record is not redacted",
        lambda r: r.evidence_text if r.status == Record.Status.REDACTED else None,
    ),
    ExportField(
        "spans",
        "a redacted record's cuts as [start, end) character offsets of its original text, or "
        "null when the record is not redacted",
        lambda r: r.cut_spans if r.status == Record.Status.REDACTED else None,
    ),
    ExportField("derived", "the filter's decision: true for a copy", lambda r: r.derived),
    ExportField(
        "kind", "the kind of the artifact it matched best, or null", lambda r: _best(r, "kind")
    ),
    ExportField("artifact", "the name of that artifact, or null", lambda r: _best(r, "name")),
    ExportField(
        "overlap",
        "its overlap with that artifact, 0 to 1, or null",
        lambda r: round(r.best_overlap, 6) if r.best_artifact else None,
    ),
    ExportField(
        "verdict",
        "the reviewer's verdict in force (confirmed, false_positive, false_negative), or null",
        lambda r: r.review.verdict if r.review else None,
    ),
    ExportField(
        "reason",
        "why a false positive is not a copy (quoted, reuse, boilerplate, other), or null",
        lambda r: (r.review.reason or None) if r.review else None,
    ),
    ExportField(
        "reviewer",
        "who gave that verdict (a user name), or null",
        lambda r: r.review.reviewer.get_username() if r.review and r.review.reviewer else None,
    ),
    ExportField(
        "note",
        "the note given with that verdict, or null",
        lambda r: r.review.note if r.review else None,
    ),
    ExportField(
        "reviewed_at",
        "when that verdict was given, ISO 8601, or null",
        lambda r: r.review.created_at.isoformat() if r.review else None,
    ),
    ExportField("run", "the ingest run that stored it", lambda r: r.run_id),
    ExportField("created_at", "when it was ingested, ISO 8601", lambda r: r.created_at.isoformat()),
    *PROVENANCE_FIELDS,
)
EXPORT_FIELD_NAMES = [field.name for field in EXPORT_FIELDS]
# Only on request (`export_records --with-text`, the desk's "with text"): the text is the
# largest part of a record by far, and an export is often read for its decisions alone.
TEXT_FIELD = ExportField(
    "text",
    "the record's text as ingested (with --with-text, or the desk's with text)",
    lambda r: r.text,
)


def export_fields(*, with_text: bool = False) -> tuple[ExportField, ...]:
    return (*EXPORT_FIELDS, TEXT_FIELD) if with_text else EXPORT_FIELDS


def _spreadsheet_safe(value):
    """Record fields come from transcripts: a cell starting like a formula is quoted, so a
    spreadsheet opening the export shows it instead of running it."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _csv_chunks(rows: Iterable[dict], fieldnames: list[str]) -> Iterator[str]:
    buffer = StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fieldnames)
    writer.writeheader()
    for row in rows:
        writer.writerow({name: _spreadsheet_safe(value) for name, value in row.items()})
        if buffer.tell() > 64 * 1024:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def _jsonl_chunks(rows: Iterable[dict], fieldnames: list[str]) -> Iterator[str]:
    for row in rows:
        yield json.dumps(row, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class ExportFormat:
    name: str
    label: str
    content_type: str
    chunks: Callable[[Iterable[dict], list[str]], Iterator[str]]


EXPORT_FORMATS = {
    f.name: f
    for f in (
        ExportFormat("csv", "CSV", "text/csv", _csv_chunks),
        ExportFormat("jsonl", "JSONL", "application/jsonl", _jsonl_chunks),
    )
}


def export_format(name: str) -> ExportFormat:
    try:
        return EXPORT_FORMATS[name]
    except KeyError:
        known = ", ".join(EXPORT_FORMATS)
        raise InputError(f"export format {name!r} is not one of {known}") from None


def export_row(record: Record, *, with_text: bool = False) -> dict:
    return {field.name: field.value(record) for field in export_fields(with_text=with_text)}


def _rows(records: QuerySet, with_text: bool) -> Iterator[dict]:
    """Newest first, streamed; the record's text is read only when it is exported."""
    deferred = (
        ("coverage", "mixed_coverage") if with_text else ("text", "coverage", "mixed_coverage")
    )
    for record in selectors.export_rows(records.defer(*deferred)):
        yield export_row(record, with_text=with_text)


def _names(with_text: bool) -> list[str]:
    return [field.name for field in export_fields(with_text=with_text)]


def records_export_chunks(
    *, records: QuerySet, file_format: str, with_text: bool = False
) -> Iterator[str]:
    """The file's text in pieces, for a streaming response."""
    return export_format(file_format).chunks(_rows(records, with_text), _names(with_text))


def records_export(
    *,
    stream: TextIO,
    records: QuerySet | None = None,
    file_format: str = "jsonl",
    with_text: bool = False,
) -> int:
    """Write `records` (every record by default) to `stream`; returns how many."""
    chunks = export_format(file_format).chunks
    written = 0

    def counted() -> Iterator[dict]:
        nonlocal written
        for row in _rows(Record.objects.all() if records is None else records, with_text):
            written += 1
            yield row

    for chunk in chunks(counted(), _names(with_text)):
        stream.write(chunk)
    return written
