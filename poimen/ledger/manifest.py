"""The JSONL artifact manifest (the task card's vault/.artifacts.jsonl, docs/card.md): read,
append once, write.

The file is append-only: a line is never rewritten, and an artifact's line is appended once
per (kind, name, sha256) however often it is registered. Appends hold an exclusive lock so two
processes registering at once cannot both decide a line is missing; a torn last line (a crash
mid-write) is cut off by the next append, and a registration whose line cannot be written is
rolled back (services/artifacts.py), so the manifest holds every artifact in force.
"""

import fcntl
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TextIO

from filter import ArtifactRecord, ManifestError

Key = tuple[str, str, str]


def manifest_read(path: Path) -> Iterator[ArtifactRecord | ManifestError]:
    """Each line's artifact, or the error that says which line is wrong and why."""
    for _, item in manifest_read_numbered(path):
        yield item


def manifest_read_numbered(path: Path) -> Iterator[tuple[int, ArtifactRecord | ManifestError]]:
    """As manifest_read, each item with the number of the line it came from."""
    with open(path, "rb") as stream:
        for lineno, raw in enumerate(stream, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                yield (
                    lineno,
                    ManifestError(
                        f"invalid UTF-8 at byte {error.start}", source=str(path), lineno=lineno
                    ),
                )
                continue
            if not line.strip():
                continue
            try:
                yield lineno, ArtifactRecord.from_json_line(line, source=str(path), lineno=lineno)
            except ManifestError as error:
                yield lineno, error


def _keys_in(stream) -> set[Key]:
    keys = set()
    for raw in stream:
        try:
            data = json.loads(raw)
            keys.add((data["kind"], data["name"], data["sha256"]))
        except (ValueError, KeyError, TypeError):
            continue  # a broken line holds no artifact; reading it reports it
    return keys


class ManifestUnwritable(Exception):
    """The manifest line could not be written (read-only, disk full): what was to be
    registered with it is not (the caller's transaction is rolled back)."""


def manifest_append(path: Path, artifacts: Iterable[ArtifactRecord]) -> int:
    """Append the artifacts the manifest does not hold yet; return how many were appended.
    A torn last line (a write cut short) is cut off first; a write that fails leaves the file
    as it was and raises ManifestUnwritable."""
    appended = 0
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a+b") as stream:
            fcntl.flock(stream, fcntl.LOCK_EX)
            try:
                stream.seek(0)
                present = _keys_in(stream)
                end = stream.seek(0, 2)
                whole = _after_last_newline(stream, end)
                try:
                    if whole != end:
                        stream.truncate(whole)  # a line cut short by a crash: repaired
                    for artifact in artifacts:
                        if artifact.key in present:
                            continue
                        stream.write(artifact.to_json_line().encode("utf-8") + b"\n")
                        present.add(artifact.key)
                        appended += 1
                    stream.flush()
                    os.fsync(stream.fileno())
                except OSError:
                    stream.truncate(whole)  # as it was: no torn line of ours
                    raise
            finally:
                fcntl.flock(stream, fcntl.LOCK_UN)
    except OSError as error:
        raise ManifestUnwritable(
            f"{path}: the manifest cannot be written ({error.strerror or error})"
        ) from None
    return appended


def _after_last_newline(stream, end: int, chunk: int = 64 * 1024) -> int:
    """The offset just after the file's last newline (0 when it has none)."""
    position = end
    while position > 0:
        start = max(0, position - chunk)
        stream.seek(start)
        found = stream.read(position - start).rfind(b"\n")
        if found >= 0:
            return start + found + 1
        position = start
    return 0


def manifest_write(stream: TextIO, artifacts: Iterable[ArtifactRecord]) -> int:
    """Write one line per artifact to `stream` (an export, not the append-only manifest)."""
    written = 0
    for artifact in artifacts:
        stream.write(artifact.to_json_line() + "\n")
        written += 1
    return written
