"""What every reader yields, and the small things they share.

A reader turns one file into `Candidate`s (records before the filter sees them), `Skipped`s
(something deliberately not a record: a thinking block, a system line) and `Problem`s
(input that could not be read, as "path:line: why"). `FileContext` is the reader's view of
the file: where it is, what it has seen, and the one way to build each of the three.
"""

import hashlib
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

# Record.external_id and Record.source column sizes; a path-based id leaves room for its hash.
MAX_EXTERNAL_ID, MAX_SOURCE = 500, 255
MAX_PATH_KEY = MAX_EXTERNAL_ID - 40
# Metadata nested deeper than this is refused: no reader writes it, and a JSON column or a
# recursive encoder would not survive 100,000 levels.
MAX_METADATA_DEPTH = 32


@dataclass(slots=True)
class Candidate:
    """A record as read from a source, before the filter has seen it.

    `identity` is the record's own identity where the source gives it one (a session and a
    message uuid, a conversation and a node id): the same record under any source label.
    """

    source: str
    external_id: str
    source_path: str
    position: int | None
    session: str
    role: str
    text: str
    metadata: dict = field(default_factory=dict)
    identity: str = ""


def record_keys(candidate: Candidate) -> tuple:
    """The keys a stored copy of `candidate` has: its source and id, and its own identity
    (under any source label) where it has one. The last names the record whatever label it
    comes under: what the hook remembers a record it sent by."""
    if candidate.identity:
        return (candidate.source, candidate.external_id), (None, candidate.identity)
    return ((candidate.source, candidate.external_id),)


@dataclass(slots=True)
class Problem:
    """Input that could not be read, with where it is and why."""

    path: str
    line: int | None
    why: str

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.why}"


@dataclass(slots=True)
class Skipped:
    """Something deliberately not read as a record: `what` is its kind ("thinking block",
    "system line"), counted in the summary; path and line (in a JSON document, its `place`
    there: "message 3") are for --verbose."""

    what: str
    path: str = ""
    line: int | None = None
    place: str = ""

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        if self.line is None and self.place:
            where += f": {self.place}"
        return f"{where}: skipped {self.what}"


Item = Candidate | Problem | Skipped


def content_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def path_key(resolved: str) -> str:
    """A file's part of an external id: its path, or a digest of a path too long to store."""
    if len(resolved) <= MAX_PATH_KEY:
        return resolved
    return "path-sha256:" + content_sha256(resolved)


def source_label_problem(label: str) -> str | None:
    """What is wrong with a source label (`--source`, a records line's "source"), or None.
    A control character would be stored and shown as it is, on the desk and in exports."""
    if not 0 < len(label) <= MAX_SOURCE:
        return f"a source label has 1 to {MAX_SOURCE} characters"
    control = next((c for c in label if ord(c) < 32 or 127 <= ord(c) < 160), None)
    if control is not None:
        return f"a source label holds no control character, {label!r} holds {control!r}"
    return None


def as_str(value) -> str:
    return value if isinstance(value, str) else ""


def too_big(size: int, limit: int) -> str:
    return (
        f"record of {size / 1e6:.1f} MB exceeds the limit of {limit / 1e6:.1f} MB"
        " (POIMEN_MAX_RECORD_BYTES)"
    )


def oversize(text: str, limit: int) -> str | None:
    """Why a record's text is over the per-record limit, or None: the one limit of every
    reader and of the API."""
    # An ASCII text is as many bytes as characters (isascii is a flag, not a scan).
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    return too_big(size, limit) if size > limit else None


@dataclass(slots=True)
class FileContext:
    """One file being read: where it is, the label to use, and what the reader has learnt
    so far (a session id from a header line, tool names by call id, a turn counter)."""

    shown: str
    resolved: str
    default_source: str | None
    lineno: int | None = None
    # Whether what is being read may hold what `unstorable` refuses (an escaped NUL or
    # surrogate): the readers of JSON say so per line or document; decoded text never does.
    suspect: bool = False
    # Where in a JSON document the reader is ("message 3"), for what it skips there.
    place: str = ""
    seen: dict = field(default_factory=dict)
    state: dict = field(default_factory=dict)
    stem: str = ""
    key: str = ""

    def __post_init__(self):
        self.stem = Path(self.resolved).stem
        self.key = path_key(self.resolved)

    def problem(self, why: str, line: int | None = -1) -> Problem:
        return Problem(self.shown, self.lineno if line == -1 else line, why)

    def skip(self, what: str) -> Skipped:
        return Skipped(what, self.shown, self.lineno, self.place)

    def content_id(self, text: str) -> str:
        """An id for a record without one of its own: the file and what it says (and which
        repeat of it), not its line, so deleting a broken line changes no other record's id."""
        sha = content_sha256(text)[:16]
        repeat = self.seen.get(sha, 0)
        self.seen[sha] = repeat + 1
        return f"{self.key}#{sha}" + (f"~{repeat}" if repeat else "")

    def candidate(
        self,
        *,
        fmt: str,
        text: str,
        external_id: str,
        session: str = "",
        role: str = "",
        identity: str = "",
        position: int | None = -1,
        **provenance,
    ) -> Candidate:
        """A candidate with its provenance (format, session, role and what the reader knows:
        turn, tool, agent, timestamp, ...) in its metadata; empty values are left out."""
        metadata = {"format": fmt, "session": session, "role": role}
        metadata.update(provenance)
        return Candidate(
            source=self.default_source or fmt,
            external_id=external_id,
            source_path=self.resolved,
            position=self.lineno if position == -1 else position,
            session=session,
            role=role,
            text=text,
            metadata={k: v for k, v in metadata.items() if v not in (None, "")},
            identity=identity,
        )


# In raw JSON, what can make what `unstorable` refuses: the escapes \u0000 and surrogates, and
# the numbers no database stores (NaN, Infinity, and an exponent of three digits: 1e400 is inf).
SUSPECT_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])|NaN|Infinity|[eE][+]?[0-9]{3}")


def text_problem(value: str) -> str | None:
    """Why a string cannot be stored, or None: one rule for records and artifacts alike. NUL
    is never stored (PostgreSQL text refuses it), nor a lone surrogate (not Unicode)."""
    if "\0" in value:
        return "holds a NUL character (\\u0000), which is never stored; fix or remove it"
    if value.isascii():
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        return f"holds a lone surrogate (\\u{ord(value[error.start]):04x}): not valid Unicode"
    return None


def unstorable(candidate: Candidate, *, suspect: bool = True) -> str | None:
    """Why `candidate` cannot be stored as it is, or None. One rule for every reader: NUL is
    never stored (PostgreSQL text refuses it), nor a lone surrogate (not Unicode), nor a
    number that is not finite (NaN, Infinity: no JSON column holds it), nor metadata nested
    deeper than MAX_METADATA_DEPTH; the line is reported instead. Without
    `suspect` (no SUSPECT_ESCAPE in the raw input: NUL bytes and invalid UTF-8 were refused as
    the line was read), only the sizes are checked."""
    if len(candidate.external_id) > MAX_EXTERNAL_ID or len(candidate.identity) > MAX_EXTERNAL_ID:
        return f"the record's id is longer than {MAX_EXTERNAL_ID} characters"
    if len(candidate.source) > MAX_SOURCE:
        return f'"source" is longer than {MAX_SOURCE} characters'
    if not suspect:
        return None
    strings = [candidate.text, candidate.external_id, candidate.session, candidate.role]
    strings += [candidate.identity, candidate.source]
    why = _strings_of(candidate.metadata, strings) if candidate.metadata else None
    if why:
        return why
    for value in strings:
        why = text_problem(value)
        if why:
            return why
    return None


def _strings_of(value, strings: list) -> str | None:
    """Add every key and string in `value` to `strings`; why it cannot be stored (nested too
    deep, a number that is not finite), or None."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_METADATA_DEPTH:
            return f"metadata nested deeper than {MAX_METADATA_DEPTH} levels"
        if isinstance(item, dict):
            strings.extend(k for k in item if isinstance(k, str))
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, str):
            strings.append(item)
        elif isinstance(item, float) and not math.isfinite(item):
            return f"metadata holds {item!r}, a number no database stores (NaN or Infinity)"
    return None
