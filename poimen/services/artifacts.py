"""Registering artifacts: stored once, a manifest line once; imports and the manifest export."""

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TextIO

from django.conf import settings
from django.db import IntegrityError, transaction

from filter import DEFAULT_PARAMS, ArtifactRecord, ManifestError, readable
from poimen.decision.artifact_records import artifact_from_record, artifact_to_record
from poimen.ledger.manifest import (
    manifest_append,
    manifest_read,
    manifest_read_numbered,
    manifest_write,
)
from poimen.models import Artifact, Event
from poimen.services.artifact_folders import (  # noqa: F401 (artifact_name_from_text: the services API)
    artifact_name_from_text,
    folder_artifacts,
    project_artifacts,
)
from poimen.services.common import InputError, check_artifact_text, check_kind, check_name
from poimen.services.refilter_affected import registration_refilter


def _manifest_path(manifest: Path | None) -> Path:
    return Path(manifest if manifest is not None else settings.POIMEN_MANIFEST)


def _artifact_store(artifact_record: ArtifactRecord, *, actor=None) -> tuple[Artifact, bool]:
    """The stored row for `artifact_record`, created (with its event) if it was not there yet."""
    existing = Artifact.objects.filter(
        kind=artifact_record.kind, name=artifact_record.name, sha256=artifact_record.sha256
    ).first()
    if existing and not existing.text and artifact_record.has_text:
        return _artifact_text_fill(existing, artifact_record, actor=actor), True
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
                data=_registered(artifact, emitted_at=artifact.emitted_at.isoformat()),
            )
    except IntegrityError:
        # Registered by someone else between our look and our write: theirs is the row.
        return Artifact.objects.get(
            kind=artifact_record.kind, name=artifact_record.name, sha256=artifact_record.sha256
        ), False
    return artifact, True


def _artifact_text_fill(
    artifact: Artifact, artifact_record: ArtifactRecord, *, actor=None
) -> Artifact:
    """A row known by its shingles alone given its text (the same sha256: the same text), and
    the shingles made from it: how an artifact of an earlier normaliser is brought up to date
    (poimen/decision/artifact_index.py's stale_artifacts)."""
    fresh = artifact_from_record(artifact_record)
    with transaction.atomic():
        filled = Artifact.objects.filter(pk=artifact.pk, text="").update(
            text=fresh.text,
            shingle_normaliser=fresh.shingle_normaliser,
            shingle_k=fresh.shingle_k,
            shingle_hash=fresh.shingle_hash,
            shingles=fresh.shingles,
            n_tokens=fresh.n_tokens,
        )
        artifact.refresh_from_db()
        if filled:
            Event.objects.log(
                Event.Type.ARTIFACT_REGISTERED,
                actor=actor,
                artifact=artifact,
                kind=artifact.kind,
                data=_registered(artifact, text_added=True),
            )
    return artifact


def _registered(artifact: Artifact, **more) -> dict:
    """An artifact_registered event's data: what was registered, and `more`."""
    return {
        "name": artifact.name,
        "sha256": artifact.sha256,
        "n_tokens": artifact.n_tokens,
        "has_text": bool(artifact.text),
        **more,
    }


def _usable(artifact_record: ArtifactRecord) -> ArtifactRecord:
    """`artifact_record` under the params in force: re-shingled from its text; without one,
    as it stands when an earlier normaliser made it (filter.readable), else refused."""
    if artifact_record.params == DEFAULT_PARAMS:
        return artifact_record
    if artifact_record.has_text:
        return artifact_record.reshingled(DEFAULT_PARAMS)
    if readable(artifact_record.params):
        return artifact_record
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
    check_artifact_text(artifact_record)
    # One transaction: a row whose manifest line cannot be written is not in force
    # (ManifestUnwritable rolls it back).
    with transaction.atomic():
        artifact, created = _artifact_store(_usable(artifact_record), actor=actor)
        # The manifest line is the stored row's (its emitted_at), even when the row was there.
        appended = manifest_append(_manifest_path(manifest), [artifact_to_record(artifact)])
    if created:
        registration_refilter([artifact], actor=actor)
    return RegisterResult(artifact=artifact, created=created, appended=bool(appended))


@dataclass
class ImportResult:
    registered: int = 0
    already: int = 0
    appended: int = 0
    problems: list[str] = field(default_factory=list)
    # Registered now, by kind; files passed over, by what they were (a licence, not text).
    kinds: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)


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
            check_artifact_text(item)
            yield _usable(item)
        except InputError as error:
            result.problems.append(f"{path}:{lineno}: {error}")


def artifacts_import(
    *,
    path: Path,
    kind: str | None = None,
    project: bool = False,
    actor=None,
    manifest: Path | None = None,
) -> ImportResult:
    """Register a folder of .md/.txt artifacts (a folder of skills understood as such), a
    JSONL manifest, or with `project` what an agent working in the folder loads; idempotent."""
    path = Path(path)
    result = ImportResult()
    if kind is not None:
        check_kind(kind)
    if project and not path.is_dir():
        result.problems.append(f"{path}: not a folder; --project takes the project's folder")
        return result
    if project:
        artifact_records = project_artifacts(path, kind, result)
    elif path.is_dir():
        artifact_records = folder_artifacts(path, kind, result)
    elif path.is_file():
        artifact_records = _artifacts_in_manifest(path, kind, result)
    else:
        result.problems.append(f"{path}: no such file or directory")
        return result
    stored, created_now = [], []
    with transaction.atomic():  # in force with their manifest lines, or not at all
        for artifact_record in artifact_records:
            artifact, created = _artifact_store(artifact_record, actor=actor)
            if created:
                created_now.append(artifact)
            result.registered += created
            result.already += not created
            result.kinds[artifact.kind] += created
            stored.append(artifact_to_record(artifact))
        result.appended = manifest_append(_manifest_path(manifest), stored) if stored else 0
    registration_refilter(created_now, actor=actor)
    return result


@dataclass
class ManifestDifferences:
    """Artifacts in force without a manifest line, and manifest lines of no stored artifact
    (by kind, name and sha256), and the manifest's broken lines."""

    unlisted: list[Artifact] = field(default_factory=list)
    unstored: list[ArtifactRecord] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.unlisted or self.unstored)

    def described(self) -> list[str]:
        return [
            *(
                f"{a.kind}/{a.name} {a.sha256[:12]}: stored, not in the manifest"
                for a in self.unlisted
            ),
            *(
                f"{a.kind}/{a.name} {a.sha256[:12]}: in the manifest, not stored"
                for a in self.unstored
            ),
        ]


def manifest_differences(*, manifest: Path | None = None) -> ManifestDifferences:
    """How the manifest and the stored artifacts differ."""
    path = _manifest_path(manifest)
    differences = ManifestDifferences()
    listed = {}
    if path.exists():
        for item in manifest_read(path):
            if isinstance(item, ManifestError):
                differences.broken.append(str(item))
            else:
                listed.setdefault(item.key, item)
    stored = set()
    for artifact in Artifact.objects.order_by("pk").iterator(chunk_size=500):
        key = (artifact.kind, artifact.name, artifact.sha256)
        stored.add(key)
        if key not in listed:
            differences.unlisted.append(artifact)
    differences.unstored = [item for key, item in listed.items() if key not in stored]
    return differences


def manifest_mend(*, actor=None, manifest: Path | None = None) -> ManifestDifferences:
    """Make them agree: append the lines of stored artifacts the manifest lacks, register the
    manifest's artifacts not stored (each with its event, as an import). Returns what differed."""
    differences = manifest_differences(manifest=manifest)
    if differences.unlisted:
        lines = [artifact_to_record(a) for a in differences.unlisted]
        manifest_append(_manifest_path(manifest), lines)
    created_now = []
    for item in differences.unstored:
        try:
            check_kind(item.kind)
            check_name(item.name)
            check_artifact_text(item)
            artifact, created = _artifact_store(_usable(item), actor=actor)
        except InputError as error:
            differences.broken.append(f"{item.kind}/{item.name}: not registered: {error}")
            continue
        if created:
            created_now.append(artifact)
    registration_refilter(created_now, actor=actor)
    return differences


def manifest_export(*, stream: TextIO) -> int:
    """Every stored artifact as a manifest line, oldest first; returns how many."""
    artifacts = Artifact.objects.order_by("created_at", "pk").iterator(chunk_size=200)
    return manifest_write(stream, (artifact_to_record(a) for a in artifacts))
