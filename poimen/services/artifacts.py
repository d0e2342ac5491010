"""Registering artifacts: stored once, a manifest line once; imports and the manifest export."""

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TextIO

from django.conf import settings
from django.db import IntegrityError, transaction

from filter import DEFAULT_PARAMS, ArtifactRecord, ManifestError
from poimen.artifact_records import artifact_from_record, artifact_to_record
from poimen.manifest import manifest_append, manifest_read_numbered, manifest_write
from poimen.models import Artifact, Event
from poimen.services.common import InputError, check_kind, check_name

ARTIFACT_SUFFIXES = (".md", ".markdown", ".txt")


def _manifest_path(manifest: Path | None) -> Path:
    return Path(manifest if manifest is not None else settings.POIMEN_MANIFEST)


def _artifact_store(artifact_record: ArtifactRecord, *, actor=None) -> tuple[Artifact, bool]:
    """The stored row for `artifact_record`, created (with its event) if it was not there yet."""
    existing = Artifact.objects.filter(
        kind=artifact_record.kind, name=artifact_record.name, sha256=artifact_record.sha256
    ).first()
    if existing:
        return existing, False
    try:
        with transaction.atomic():
            artifact = artifact_from_record(artifact_record)
            artifact.save()
            Event.objects.log(
                Event.Type.ARTIFACT_REGISTERED,
                actor=actor,
                artifact=artifact,
                kind=artifact.kind,
                data={
                    "name": artifact.name,
                    "sha256": artifact.sha256,
                    "n_tokens": artifact.n_tokens,
                    "has_text": bool(artifact.text),
                    "emitted_at": artifact.emitted_at.isoformat(),
                },
            )
    except IntegrityError:
        # Registered by someone else between our look and our write: theirs is the row.
        return Artifact.objects.get(
            kind=artifact_record.kind, name=artifact_record.name, sha256=artifact_record.sha256
        ), False
    return artifact, True


def _usable(artifact_record: ArtifactRecord) -> ArtifactRecord:
    """`artifact_record` under the params in force: re-shingled from its text, or refused
    without one."""
    if artifact_record.params == DEFAULT_PARAMS:
        return artifact_record
    if artifact_record.has_text:
        return artifact_record.reshingled(DEFAULT_PARAMS)
    made_with = artifact_record.params or "unstated shingling parameters"
    raise InputError(
        f"{artifact_record.kind}/{artifact_record.name}: shingles made with {made_with} and no "
        f"text to make them again with {DEFAULT_PARAMS}; it could not be matched"
    )


@dataclass
class RegisterResult:
    artifact: Artifact
    created: bool
    appended: bool


def artifact_register(
    *,
    kind: str,
    name: str,
    text: str,
    emitted_at: datetime | None = None,
    actor=None,
    manifest: Path | None = None,
) -> RegisterResult:
    """Store an artifact and append its manifest line, each exactly once per (kind, name, sha)."""
    check_kind(kind)
    check_name(name)
    if not text.strip():
        raise InputError(f"{kind}/{name}: the artifact's text is empty")
    if "\0" in text:
        raise InputError(f"{kind}/{name}: the text holds NUL bytes: a binary file, not an artifact")
    artifact_record = ArtifactRecord.from_text(
        kind=kind, name=name, text=text, emitted_at=emitted_at
    )
    return artifact_record_register(artifact_record=artifact_record, actor=actor, manifest=manifest)


def artifact_record_register(
    *, artifact_record: ArtifactRecord, actor=None, manifest: Path | None = None
) -> RegisterResult:
    """As artifact_register, for an artifact already made: from text, or a manifest line
    (re-shingled from its text when made under other parameters, refused without one)."""
    check_kind(artifact_record.kind)
    check_name(artifact_record.name)
    artifact, created = _artifact_store(_usable(artifact_record), actor=actor)
    # The manifest line is the stored row's (its emitted_at), even when the row was there before.
    appended = manifest_append(_manifest_path(manifest), [artifact_to_record(artifact)])
    return RegisterResult(artifact=artifact, created=created, appended=bool(appended))


@dataclass
class ImportResult:
    registered: int = 0
    already: int = 0
    appended: int = 0
    problems: list[str] = field(default_factory=list)


FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
FRONT_MATTER_NAME = re.compile(r"^name:[ \t]*(.+?)[ \t]*$", re.MULTILINE)


def artifact_name_from_text(text: str, *, fallback: str) -> str:
    """The `name:` of the YAML front matter, else `fallback` (a file's stem)."""
    front = FRONT_MATTER.match(text)
    if front:
        found = FRONT_MATTER_NAME.search(front.group(1))
        if found:
            name = found.group(1).strip().strip("'\"").strip()
            if name:
                return name
    return fallback


def _artifacts_in_folder(folder: Path, kind: str | None, result: ImportResult):
    for path in sorted(folder.rglob("*")):
        if path.suffix.lower() not in ARTIFACT_SUFFIXES or not path.is_file():
            continue
        if any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            result.problems.append(f"{path}: invalid UTF-8 at byte {error.start}")
            continue
        except OSError as error:
            result.problems.append(f"{path}: cannot read: {error.strerror or error}")
            continue
        if not text.strip():
            result.problems.append(f"{path}: empty text")
            continue
        if "\0" in text:
            result.problems.append(f"{path}: binary file (NUL bytes), not an artifact")
            continue
        # The kind is the folder holding the file; a skill in a folder of its own
        # (skills/<name>/SKILL.md) is named by that folder and its kind is the one above.
        own_folder = path.name.lower() == "skill.md"
        file_kind = kind or (path.parent.parent if own_folder else path.parent).name
        try:
            check_kind(file_kind)
        except InputError as error:
            result.problems.append(f"{path}: {error}; give --kind")
            continue
        fallback = path.parent.name if own_folder else path.stem
        name = artifact_name_from_text(text, fallback=fallback)
        try:
            check_name(name)
        except InputError as error:
            result.problems.append(f"{path}: {error}")
            continue
        yield ArtifactRecord.from_text(kind=file_kind, name=name, text=text)


def _artifacts_in_manifest(path: Path, kind: str | None, result: ImportResult):
    for lineno, item in manifest_read_numbered(path):
        if isinstance(item, ManifestError):
            result.problems.append(str(item))
            continue
        if kind is not None and item.kind != kind:
            continue
        try:
            check_kind(item.kind)
            check_name(item.name)
            yield _usable(item)
        except InputError as error:
            result.problems.append(f"{path}:{lineno}: {error}")


def artifacts_import(
    *, path: Path, kind: str | None = None, actor=None, manifest: Path | None = None
) -> ImportResult:
    """Register a folder of .md/.txt artifacts or a JSONL manifest; idempotent."""
    path = Path(path)
    result = ImportResult()
    if kind is not None:
        check_kind(kind)
    if path.is_dir():
        artifact_records = _artifacts_in_folder(path, kind, result)
    elif path.is_file():
        artifact_records = _artifacts_in_manifest(path, kind, result)
    else:
        result.problems.append(f"{path}: no such file or directory")
        return result
    stored = []
    for artifact_record in artifact_records:
        artifact, created = _artifact_store(artifact_record, actor=actor)
        result.registered += created
        result.already += not created
        stored.append(artifact_to_record(artifact))
    result.appended = manifest_append(_manifest_path(manifest), stored) if stored else 0
    return result


def manifest_export(*, stream: TextIO) -> int:
    """Every stored artifact as a manifest line, oldest first; returns how many."""
    artifacts = Artifact.objects.order_by("created_at", "pk").iterator(chunk_size=200)
    return manifest_write(stream, (artifact_to_record(a) for a in artifacts))
