"""The JSONL artifact manifest (the card's vault/.artifacts.jsonl): read, append once, write.

The file is append-only: a line is never rewritten, and an artifact's line is appended once
per (kind, name, sha256) however often it is registered. Appends hold an exclusive lock so two
processes registering at once cannot both decide a line is missing.
"""

import fcntl
import json
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


def manifest_append(path: Path, artifacts: Iterable[ArtifactRecord]) -> int:
    """Append the artifacts the manifest does not hold yet; return how many were appended."""
    path.parent.mkdir(parents=True, exist_ok=True)
    appended = 0
    with open(path, "a+b") as stream:
        fcntl.flock(stream, fcntl.LOCK_EX)
        try:
            stream.seek(0)
            present = _keys_in(stream)
            stream.seek(0, 2)
            if stream.tell() and not _ends_with_newline(stream):
                stream.write(b"\n")  # a line cut short by a crash must not swallow ours
            for artifact in artifacts:
                if artifact.key in present:
                    continue
                stream.write(artifact.to_json_line().encode("utf-8") + b"\n")
                present.add(artifact.key)
                appended += 1
            stream.flush()
        finally:
            fcntl.flock(stream, fcntl.LOCK_UN)
    return appended


def _ends_with_newline(stream) -> bool:
    end = stream.tell()
    stream.seek(end - 1)
    last = stream.read(1)
    stream.seek(end)
    return last == b"\n"


def manifest_write(stream: TextIO, artifacts: Iterable[ArtifactRecord]) -> int:
    """Write one line per artifact to `stream` (an export, not the append-only manifest)."""
    written = 0
    for artifact in artifacts:
        stream.write(artifact.to_json_line() + "\n")
        written += 1
    return written
