"""Every write poimen makes goes through here: artifacts, ingest, refilter, thresholds, reviews.

Keyword-only functions named <thing>_<action>. The matcher runs outside transactions; each
batch's records, matches and events are written in one transaction, so a run killed midway
leaves whole batches behind and a re-run adds exactly what is missing.
"""

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TextIO

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from filter import DEFAULT_PARAMS, ArtifactRecord, ManifestError
from poimen.bulk import existing_record_keys, insert_all
from poimen.checking import BatchChecker, Checked, summarise
from poimen.filtering import (
    DbFilter,
    Policies,
    artifact_from_record,
    artifact_to_record,
    derived_condition,
    filter_from_db,
    report_floor,
    stored_coverage,
)
from poimen.manifest import manifest_append, manifest_read, manifest_write
from poimen.models import (
    Artifact,
    Event,
    IngestRun,
    KindPolicy,
    Match,
    Record,
    Review,
    ThresholdChange,
)
from poimen.readers import (
    MAX_SOURCE,
    Candidate,
    Problem,
    Skipped,
    content_sha256,
    read_sources,
)

KIND_PATTERN = re.compile(r"[a-z][a-z0-9-]*(?:_[a-z0-9-]+)*")
ARTIFACT_SUFFIXES = (".md", ".markdown", ".txt")
# Problems beyond this many are counted, not kept: memory stays flat on a broken input.
KEPT_PROBLEMS = 200


class InputError(ValidationError):
    """Input the operator must fix (a bad kind, a threshold out of range, a missing reason).

    A ValidationError, so that forms and views show its messages as they show their own."""

    def __str__(self) -> str:
        return " ".join(self.messages)


# -- artifacts ----------------------------------------------------------------------------------


def _check_kind(kind: str) -> str:
    if not KIND_PATTERN.fullmatch(kind or "") or len(kind) > 50:
        raise InputError(
            f"kind {kind!r}: use lower-case letters, digits, '-' and single '_' (e.g. 'skill')"
        )
    return kind


def _check_name(name: str) -> str:
    if not name.strip() or len(name) > 255:
        raise InputError("an artifact needs a name of 1 to 255 characters")
    return name


def _manifest_path(manifest: Path | None) -> Path:
    return Path(manifest if manifest is not None else settings.POIMEN_MANIFEST)


def _artifact_store(record: ArtifactRecord, *, actor=None) -> tuple[Artifact, bool]:
    """The stored row for `record`, created (with its event) if it was not there yet."""
    existing = Artifact.objects.filter(
        kind=record.kind, name=record.name, sha256=record.sha256
    ).first()
    if existing:
        return existing, False
    try:
        with transaction.atomic():
            artifact = artifact_from_record(record)
            artifact.save()
            Event.objects.create(
                type=Event.Type.ARTIFACT_REGISTERED,
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
        return Artifact.objects.get(kind=record.kind, name=record.name, sha256=record.sha256), False
    return artifact, True


def _usable(record: ArtifactRecord) -> ArtifactRecord:
    """`record` under the params in force: re-shingled from its text, or refused without one."""
    if record.params == DEFAULT_PARAMS:
        return record
    if record.has_text:
        return record.reshingled(DEFAULT_PARAMS)
    made_with = record.params or "unstated shingling parameters"
    raise InputError(
        f"{record.kind}/{record.name}: shingles made with {made_with} and no text to make them "
        f"again with {DEFAULT_PARAMS}; it could not be matched"
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
    _check_kind(kind)
    _check_name(name)
    if not text.strip():
        raise InputError(f"{kind}/{name}: the artifact's text is empty")
    record = ArtifactRecord.from_text(kind=kind, name=name, text=text, emitted_at=emitted_at)
    artifact, created = _artifact_store(record, actor=actor)
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
        # The kind is the folder holding the file; a skill in a folder of its own
        # (skills/<name>/SKILL.md) is named by that folder and its kind is the one above.
        own_folder = path.name.lower() == "skill.md"
        file_kind = kind or (path.parent.parent if own_folder else path.parent).name
        try:
            _check_kind(file_kind)
        except InputError as error:
            result.problems.append(f"{path}: {error}; give --kind")
            continue
        fallback = path.parent.name if own_folder else path.stem
        name = artifact_name_from_text(text, fallback=fallback)
        yield ArtifactRecord.from_text(kind=file_kind, name=name, text=text)


def _artifacts_in_manifest(path: Path, kind: str | None, result: ImportResult):
    for item in manifest_read(path):
        if isinstance(item, ManifestError):
            result.problems.append(str(item))
            continue
        if kind is not None and item.kind != kind:
            continue
        try:
            _check_kind(item.kind)
            yield _usable(item)
        except InputError as error:
            result.problems.append(f"{path}: {error}")


def artifacts_import(
    *, path: Path, kind: str | None = None, actor=None, manifest: Path | None = None
) -> ImportResult:
    """Register a folder of .md/.txt artifacts or a JSONL manifest; idempotent."""
    path = Path(path)
    result = ImportResult()
    if kind is not None:
        _check_kind(kind)
    if path.is_dir():
        records = _artifacts_in_folder(path, kind, result)
    elif path.is_file():
        records = _artifacts_in_manifest(path, kind, result)
    else:
        result.problems.append(f"{path}: no such file or directory")
        return result
    stored = []
    for record in records:
        try:
            _check_name(record.name)
        except InputError as error:
            result.problems.append(f"{path}: {record.kind}/{record.name[:60]}…: {error}")
            continue
        artifact, created = _artifact_store(record, actor=actor)
        result.registered += created
        result.already += not created
        stored.append(artifact_to_record(artifact))
    result.appended = manifest_append(_manifest_path(manifest), stored) if stored else 0
    return result


def manifest_export(*, stream: TextIO) -> int:
    """Every stored artifact as a manifest line, oldest first; returns how many."""
    artifacts = Artifact.objects.order_by("created_at", "pk").iterator(chunk_size=200)
    return manifest_write(stream, (artifact_to_record(a) for a in artifacts))


# -- ingest ---------------------------------------------------------------------------------------


@dataclass
class IngestResult:
    run: IngestRun | None = None
    read: int = 0
    new: int = 0
    already: int = 0
    skipped: int = 0
    errors: int = 0
    excluded: Counter = field(default_factory=Counter)
    skipped_by: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def as_counts(self) -> dict:
        return {
            "read": self.read,
            "new": self.new,
            "already": self.already,
            "skipped": self.skipped,
            "errors": self.errors,
            "excluded": dict(sorted(self.excluded.items())),
            "skipped_by": dict(sorted(self.skipped_by.items())),
        }


def _exclusion_snapshot(record: Record, checked: Checked, db_filter: DbFilter) -> tuple[int, dict]:
    """The decisive artifact's id and the event data of a derived_excluded event."""
    kind, match = checked.decided_kind, checked.decided_match
    if match is None:  # decided by the kind's coverage: name its best artifact
        match = next((m for m in checked.matches if m.kind == kind), None)
        overlap, how = checked.coverage[kind], "coverage"
    else:
        overlap, how = match.overlap, "overlap"
    artifact = match.artifact if match else None
    return db_filter.artifact_ids[artifact] if artifact else None, {
        "source": record.source,
        "external_id": record.external_id,
        "source_path": record.source_path,
        "position": record.position,
        "session": record.session,
        "role": record.role,
        "artifact": (
            {"kind": kind, "name": artifact[1], "sha256": artifact[2]} if artifact else None
        ),
        "overlap": round(overlap, 6),
        "threshold": db_filter.policies.threshold_for(kind),
        "decided_by": how,
        "shared": match.shared if match else None,
    }


# Record's attributes in field order with their defaults: a model built from positional
# values skips the keyword path of Model.__init__, a third of ingest's own time per record.
_RECORD_ATTNAMES = [field.attname for field in Record._meta.concrete_fields]
_RECORD_DEFAULTS = {field.attname: field.get_default() for field in Record._meta.concrete_fields}


def _record_from(candidate: Candidate, run: IngestRun) -> Record:
    values = {
        **_RECORD_DEFAULTS,
        "run_id": run.pk,
        "source": candidate.source,
        "external_id": candidate.external_id,
        "source_path": candidate.source_path[:1000],
        "position": candidate.position,
        "session": candidate.session[:255],
        "role": candidate.role[:50],
        "metadata": candidate.metadata,
        "text": candidate.text,
        "sha256": content_sha256(candidate.text),
        "coverage": {},  # a dict of its own, never the shared default
    }
    return Record(*[values[attname] for attname in _RECORD_ATTNAMES])


def _apply_checked(record: Record, checked: Checked, db_filter: DbFilter) -> list[Match]:
    """Set the filter's decision on `record`; return its unsaved matches (for the floor up)."""
    floor = report_floor()
    kept = [m for m in checked.matches if m.overlap >= floor]
    record.derived = checked.derived
    record.coverage = stored_coverage(checked.coverage, checked.matches)
    best = max(kept, key=lambda m: m.overlap, default=None)
    record.best_overlap = round(best.overlap, 6) if best else 0.0
    record.best_artifact_id = db_filter.artifact_ids[best.artifact] if best else None
    return [
        Match(
            record=record,
            artifact_id=db_filter.artifact_ids[m.artifact],
            overlap=m.overlap,
            artifact_containment=m.artifact_containment,
            record_containment=m.record_containment,
            shared=m.shared,
            threshold=m.threshold,
        )
        for m in kept
    ]


def _fresh_only(batch: list[Candidate], in_flight: set, result: IngestResult) -> list[Candidate]:
    """The candidates not stored yet, nor earlier in this input, nor in a batch still in flight."""
    seen = in_flight | existing_record_keys({(c.source, c.external_id) for c in batch})
    fresh = []
    for candidate in batch:
        key = (candidate.source, candidate.external_id)
        if key in seen:
            result.already += 1
            continue
        seen.add(key)
        fresh.append(candidate)
    return fresh


def _write_batch(
    fresh: list[Candidate],
    checked: list[Checked] | None,
    *,
    run: IngestRun,
    db_filter: DbFilter | None,
    result: IngestResult,
) -> None:
    """Store one batch's records, matches and exclusion events in one transaction."""
    records = [_record_from(candidate, run) for candidate in fresh]
    matches, exclusions = [], []
    for record, verdict in zip(records, checked or [None] * len(records), strict=True):
        if verdict is None:
            continue
        matches.extend(_apply_checked(record, verdict, db_filter))
        if verdict.derived:
            record.status = Record.Status.EXCLUDED
            exclusions.append((record, verdict))

    with transaction.atomic():
        insert_all(records)
        for match in matches:
            match.record_id = match.record.pk
        insert_all(matches)
        events = []
        for record, verdict in exclusions:
            artifact_id, data = _exclusion_snapshot(record, verdict, db_filter)
            data["run"] = run.pk
            events.append(
                Event(
                    type=Event.Type.DERIVED_EXCLUDED,
                    run=run,
                    record=record,
                    artifact_id=artifact_id,
                    kind=verdict.decided_kind,
                    data=data,
                )
            )
        insert_all(events)
    result.new += len(records)
    for _, verdict in exclusions:
        result.excluded[verdict.decided_kind] += 1


def _write_batch_once(fresh, checked, *, run, db_filter, result: IngestResult) -> None:
    """Write a batch; when another ingest stored some of its records meanwhile (the unique
    constraint says so), write the rest and count those as already ingested."""
    try:
        _write_batch(fresh, checked, run=run, db_filter=db_filter, result=result)
    except IntegrityError:
        stored = existing_record_keys({(c.source, c.external_id) for c in fresh})
        keep = [i for i, c in enumerate(fresh) if (c.source, c.external_id) not in stored]
        if len(keep) == len(fresh):
            raise  # not a race with another ingest: a real error
        result.already += len(fresh) - len(keep)
        _write_batch(
            [fresh[i] for i in keep],
            [checked[i] for i in keep] if checked is not None else None,
            run=run,
            db_filter=db_filter,
            result=result,
        )


def _batch_size(value: int | None) -> int:
    value = settings.POIMEN_INGEST_BATCH_SIZE if value is None else value
    if value < 1:
        raise InputError(f"a batch size is at least 1, not {value}")
    return value


def _candidate_batches(items, size: int, result: IngestResult, on_problem) -> Iterator[list]:
    """Candidates in batches of `size`; skips and problems are counted on the way."""
    batch: list[Candidate] = []
    for item in items:
        if isinstance(item, Candidate):
            result.read += 1
            batch.append(item)
            if len(batch) >= size:
                yield batch
                batch = []
        elif isinstance(item, Skipped):
            result.skipped += 1
            result.skipped_by[item.what] += 1
        elif isinstance(item, Problem):
            result.errors += 1
            if len(result.problems) < KEPT_PROBLEMS:
                result.problems.append(str(item))
            if on_problem:
                on_problem(str(item))
    if batch:
        yield batch


def records_ingest(
    *,
    paths: Iterable[str | Path],
    source: str | None = None,
    filtered: bool = True,
    batch_size: int | None = None,
    workers: int | None = None,
    actor=None,
    on_problem: Callable[[str], None] | None = None,
    on_progress: Callable[[IngestResult], None] | None = None,
) -> IngestResult:
    """Read `paths`, check each new record against every artifact, store records, matches and
    exclusion events batch by batch. Records already ingested (same source and id) are left.

    With `workers`, batches are checked in that many forked processes while this one reads
    and writes; the results are written in input order either way."""
    paths = [str(p) for p in paths]
    batch_size = _batch_size(batch_size)
    workers = settings.POIMEN_INGEST_WORKERS if workers is None else workers
    if workers < 0:
        raise InputError(f"workers is 0 (check in this process) or more, not {workers}")
    if source is not None and not 0 < len(source) <= MAX_SOURCE:
        raise InputError(f"a source label has 1 to {MAX_SOURCE} characters")
    db_filter = filter_from_db() if filtered else None
    policies = db_filter.policies if db_filter else Policies.load()
    run = IngestRun.objects.create(
        source=(source or ", ".join(paths))[:255],
        filtered=filtered,
        thresholds={
            kind: policies.threshold_for(kind)
            for kind in set(policies.thresholds)
            | set(Artifact.objects.values_list("kind", flat=True))
        },
    )
    if not filtered:
        Event.objects.create(
            type=Event.Type.FILTER_DISABLED,
            actor=actor,
            run=run,
            data={"run": run.pk, "paths": paths, "source": source},
        )
    result = IngestResult(run=run)
    items = read_sources(
        paths, max_record_bytes=settings.POIMEN_MAX_RECORD_BYTES, default_source=source
    )
    batches = _candidate_batches(items, batch_size, result, on_problem)

    def write(done):
        for fresh, checked in done:
            for candidate in fresh:
                in_flight.discard((candidate.source, candidate.external_id))
            _write_batch_once(fresh, checked, run=run, db_filter=db_filter, result=result)
            if on_progress:
                on_progress(result)

    in_flight: set = set()
    if db_filter is None:
        for batch in batches:
            write([(_fresh_only(batch, in_flight, result), None)])
    else:
        with BatchChecker(db_filter.filter, workers=workers) as checker:
            for batch in batches:
                fresh = _fresh_only(batch, in_flight, result)
                in_flight.update((c.source, c.external_id) for c in fresh)
                write(checker.submit(fresh, [c.text for c in fresh]))
            write(checker.drain())
    run.counts = result.as_counts()
    run.finished_at = timezone.now()
    run.save(update_fields=["counts", "finished_at"])
    return result


# -- refilter and thresholds --------------------------------------------------------------------


def _status_for(record: Record) -> str:
    """What holds: a reviewer's verdict first, the filter's decision otherwise."""
    if record.review_id is not None:
        return record.review.status
    return Record.Status.EXCLUDED if record.derived else Record.Status.EVIDENCE


def _status_event(record: Record, old_status: str, *, cause: str, actor=None, data=None) -> Event:
    """The one event a status change writes: derived_excluded when the filter now excludes."""
    snapshot = {
        "source": record.source,
        "external_id": record.external_id,
        "from": old_status,
        "to": record.status,
        "cause": cause,
        "best_overlap": record.best_overlap,
        **(data or {}),
    }
    excluded = record.status == Record.Status.EXCLUDED
    best = record.best_artifact
    return Event(
        type=Event.Type.DERIVED_EXCLUDED if excluded else Event.Type.STATUS_CHANGED,
        actor=actor,
        record=record,
        artifact=best,
        kind=best.kind if best else "",
        data=snapshot,
    )


@dataclass
class RefilterResult:
    checked: int = 0
    excluded: int = 0
    released: int = 0
    matches: int = 0
    kept_by_review: int = 0


def _batches(queryset, size: int) -> Iterator[list]:
    """Keyset pages by pk: steady cost per page however far in, and safe while rows change."""
    last = 0
    while True:
        page = list(queryset.filter(pk__gt=last).order_by("pk")[:size])
        if not page:
            return
        yield page
        last = page[-1].pk


DECISION_FIELDS = ("derived", "status", "coverage", "best_overlap", "best_artifact_id")


def _decision_of(record: Record) -> tuple:
    return tuple(getattr(record, field) for field in DECISION_FIELDS)


def records_refilter(
    *, kind: str | None = None, batch_size: int | None = None, actor=None
) -> RefilterResult:
    """Check stored records again (against every artifact, or those of `kind`): matches are
    replaced, decisions and statuses updated. A reviewer's verdict is never overridden."""
    batch_size = _batch_size(batch_size)
    db_filter = filter_from_db(kind=kind)
    policies = db_filter.policies
    kinds = set(Artifact.objects.values_list("kind", flat=True))
    result = RefilterResult()
    records = Record.objects.select_related("review")
    for page in _batches(records, batch_size):
        verdicts = [db_filter.filter.check(record.text) for record in page]
        before = {r.pk: _decision_of(r) for r in page}
        with transaction.atomic():
            stale = Match.objects.filter(record__in=page)
            if kind is not None:
                stale = stale.filter(artifact__kind=kind)
            stale.delete()
            matches = []
            for record, verdict in zip(page, verdicts, strict=True):
                own = _apply_checked(record, summarise(verdict), db_filter)
                if kind is not None:
                    # Only this kind was checked: keep what the record knows of the others.
                    record.coverage = {
                        **{k: v for k, v in before[record.pk][2].items() if k != kind},
                        **record.coverage,
                    }
                matches.extend(own)
            Match.objects.bulk_create(matches)
            if kind is not None:
                # The decision query reads coverage from the table: store the new one first.
                covered = [r for r in page if r.coverage != before[r.pk][2]]
                Record.objects.bulk_update(covered, ["coverage"])
                _redo_best_and_derived(page, policies, kinds)
            events = []
            for record in page:
                old_derived, old_status = before[record.pk][:2]
                record.status = _status_for(record)
                if record.status != old_status:
                    result.excluded += record.status == Record.Status.EXCLUDED
                    result.released += record.status == Record.Status.EVIDENCE
                    events.append(_status_event(record, old_status, cause="refilter", actor=actor))
                elif record.derived != old_derived and record.review_id is not None:
                    result.kept_by_review += 1
            # Most records come out as they went in: write only those that changed.
            changed = [r for r in page if _decision_of(r) != before[r.pk]]
            Record.objects.bulk_update(changed, list(DECISION_FIELDS))
            Event.objects.bulk_create(events)
        result.checked += len(page)
        result.matches += len(matches)
    return result


def _redo_best_and_derived(page: list[Record], policies: Policies, kinds: set[str]) -> None:
    """After matches of one kind were replaced: best match and decision from all stored ones."""
    ids = [r.pk for r in page]
    derived_ids = set(
        Record.objects.filter(pk__in=ids)
        .filter(derived_condition(policies, kinds))
        .values_list("pk", flat=True)
    )
    best = {}
    for match in Match.objects.filter(record_id__in=ids).order_by("record_id", "-overlap"):
        best.setdefault(match.record_id, match)
    for record in page:
        record.derived = record.pk in derived_ids
        top = best.get(record.pk)
        record.best_overlap = round(top.overlap, 6) if top else 0.0
        record.best_artifact_id = top.artifact_id if top else None


@dataclass
class ThresholdResult:
    kind: str
    old: float
    new: float
    excluded: int = 0
    released: int = 0
    kept_by_review: int = 0


class ThresholdBelowFloor(InputError):
    """A threshold the stored matches cannot show the effect of."""


def threshold_change(*, kind: str, value: float, reason: str, actor=None) -> ThresholdResult:
    """Set `kind`'s threshold and apply it from the stored matches (no re-shingling): records
    the new value excludes or releases change status, each with an event, unless a reviewer's
    verdict holds them. Writes a ThresholdChange and a threshold_changed event."""
    _check_kind(kind)
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise InputError(f"a threshold is between 0 and 1, not {value}")
    floor = report_floor()
    if value < floor:
        raise ThresholdBelowFloor(
            f"{value} is below the reporting floor {floor}: pairs under the floor were never "
            f"stored, so this threshold cannot be applied from them. Lower POIMEN_REPORT_FLOOR "
            f"and run `refilter` first"
        )
    if not (reason or "").strip():
        raise InputError("a threshold change needs a reason")
    with transaction.atomic():
        policy, _ = KindPolicy.objects.select_for_update(of=("self",)).get_or_create(kind=kind)
        old = policy.threshold
        policy.threshold = value
        policy.save(update_fields=["threshold"])
        ThresholdChange.objects.create(kind=kind, old=old, new=value, reason=reason, actor=actor)
        Event.objects.create(
            type=Event.Type.THRESHOLD_CHANGED,
            actor=actor,
            kind=kind,
            data={"old": old, "new": value, "reason": reason},
        )
        result = ThresholdResult(kind=kind, old=old, new=value)
        _threshold_apply(kind, value, old, reason, actor, result)
    return result


def _threshold_apply(kind, value, old, reason, actor, result: ThresholdResult) -> None:
    policies = Policies.load()
    kinds = set(Artifact.objects.values_list("kind", flat=True)) | {kind}
    touched = Record.objects.filter(
        Q(Exists(Match.objects.filter(record=OuterRef("pk"), artifact__kind=kind)))
        | Q(coverage__has_key=kind)
    )
    # Positive filters only: negating JSON key lookups would drop the rows where a key is
    # missing (SQL NULL), so the released are "derived and not among the derived now".
    derived_now = touched.filter(derived_condition(policies, kinds)).values("pk")
    flips = [
        (touched.filter(derived=False, pk__in=derived_now), True),
        (touched.filter(derived=True).exclude(pk__in=derived_now), False),
    ]
    event_data = {"threshold": {"kind": kind, "old": old, "new": value}, "reason": reason}
    for queryset, derived in flips:
        ids = list(queryset.values_list("pk", flat=True))
        for start in range(0, len(ids), 1000):
            chunk = list(
                Record.objects.filter(pk__in=ids[start : start + 1000]).select_related(
                    "review", "best_artifact"
                )
            )
            events = []
            for record in chunk:
                old_status = record.status
                record.derived = derived
                record.status = _status_for(record)
                if record.status != old_status:
                    result.excluded += derived
                    result.released += not derived
                    events.append(
                        _status_event(
                            record,
                            old_status,
                            cause="threshold_changed",
                            actor=actor,
                            data=event_data,
                        )
                    )
                else:
                    result.kept_by_review += 1
            Record.objects.bulk_update(chunk, ["derived", "status"])
            Event.objects.bulk_create(events)
    Match.objects.filter(artifact__kind=kind).update(threshold=value)


# -- verify and export --------------------------------------------------------------------------


@dataclass(frozen=True)
class Offender:
    record_id: int
    source: str
    external_id: str
    artifact: str
    kind: str
    overlap: float
    threshold: float

    def __str__(self) -> str:
        return (
            f"{self.source}:{self.external_id} matches {self.kind}/{self.artifact} "
            f"(overlap {self.overlap:.3f} > threshold {self.threshold})"
        )


@dataclass
class VerifyResult:
    checked: int = 0
    released_by_review: int = 0
    offenders: list[Offender] = field(default_factory=list)


def derived_verify(*, batch_size: int = 1000) -> VerifyResult:
    """The card's `mem verify --derived-filter`: from the text, with today's artifacts and
    thresholds, no evidence record may be derived. Records a reviewer released (false
    positive) are counted apart; every other derived evidence record is an offender."""
    db_filter = filter_from_db()
    result = VerifyResult()
    evidence = Record.objects.filter(status=Record.Status.EVIDENCE).select_related("review")
    for page in _batches(
        evidence.only("pk", "source", "external_id", "text", "review"), batch_size
    ):
        for record in page:
            result.checked += 1
            verdict = db_filter.filter.check(record.text)
            if not verdict.derived:
                continue
            if record.review and record.review.verdict == Review.Verdict.FALSE_POSITIVE:
                result.released_by_review += 1
                continue
            checked = summarise(verdict)
            kind, match = checked.decided_kind, checked.decided_match
            if match is None:  # several artifacts of the kind together: name the largest part
                match = next(m for m in checked.matches if m.kind == kind)
                overlap = checked.coverage[kind]
            else:
                overlap = match.overlap
            result.offenders.append(
                Offender(
                    record_id=record.pk,
                    source=record.source,
                    external_id=record.external_id,
                    artifact=match.artifact[1],
                    kind=kind,
                    overlap=overlap,
                    threshold=db_filter.filter.threshold_for(kind),
                )
            )
    return result


def records_export(*, stream: TextIO) -> int:
    """A JSONL line per record with its decision, for other tools; returns how many."""
    written = 0
    records = Record.objects.select_related("best_artifact").only(
        "pk",
        "source",
        "external_id",
        "status",
        "derived",
        "best_overlap",
        "best_artifact__name",
        "best_artifact__kind",
    )
    for page in _batches(records, 2000):
        for record in page:
            best = record.best_artifact
            line = {
                "id": record.external_id,
                "source": record.source,
                "status": record.status,
                "derived": record.derived,
                "matched": best.name if best else None,
                "kind": best.kind if best else None,
                "overlap": round(record.best_overlap, 6) if best else None,
            }
            stream.write(json.dumps(line, ensure_ascii=False) + "\n")
            written += 1
    return written


# -- reviews --------------------------------------------------------------------------------------

REVIEW_EVENTS = {
    Review.Verdict.CONFIRMED: Event.Type.REVIEW_CONFIRMED,
    Review.Verdict.FALSE_POSITIVE: Event.Type.REVIEW_FALSE_POSITIVE,
    Review.Verdict.FALSE_NEGATIVE: Event.Type.REVIEW_FALSE_NEGATIVE,
}


def _review_snapshot(record: Record, old_status: str) -> dict:
    best = record.best_artifact
    return {
        "source": record.source,
        "external_id": record.external_id,
        "from": old_status,
        "to": record.status,
        "derived": record.derived,
        "best_overlap": record.best_overlap,
        "artifact": {"kind": best.kind, "name": best.name} if best else None,
    }


def _review_apply(record: Record, verdict, actor, note: str) -> Review:
    review = Review.objects.create(record=record, verdict=verdict, note=note, reviewer=actor)
    old_status = record.status
    record.review = review
    record.status = review.status
    record.save(update_fields=["review", "status"])
    best = record.best_artifact
    Event.objects.create(
        type=REVIEW_EVENTS[verdict],
        actor=actor,
        record=record,
        artifact=best,
        kind=best.kind if best else "",
        data={**_review_snapshot(record, old_status), "verdict": verdict.value, "note": note},
    )
    return review


def _verdict(value: str) -> Review.Verdict:
    try:
        return Review.Verdict(value)
    except ValueError:
        choices = ", ".join(Review.Verdict.values)
        raise InputError(f"verdict {value!r} is not one of {choices}") from None


def review_record(*, record: Record, verdict: str, actor, note: str = "") -> Review:
    """A reviewer's verdict: it outranks the filter until someone changes it; an event each."""
    verdict = _verdict(verdict)
    with transaction.atomic():
        record = (
            Record.objects.select_for_update(of=("self",))
            .select_related("best_artifact")
            .get(pk=record.pk)
        )
        return _review_apply(record, verdict, actor, note)


def reviews_bulk(*, records, verdict: str, actor, note: str = "") -> int:
    """The same verdict on every record of a queryset (one transaction); returns how many."""
    verdict = _verdict(verdict)
    applied = 0
    with transaction.atomic():
        ids = list(records.order_by("pk").values_list("pk", flat=True))
        for start in range(0, len(ids), 500):
            chunk = (
                Record.objects.select_for_update(of=("self",))
                .select_related("best_artifact")
                .filter(pk__in=ids[start : start + 500])
                .order_by("pk")
            )
            for record in chunk:
                _review_apply(record, verdict, actor, note)
                applied += 1
    return applied


def review_undo(*, record: Record, actor, note: str = "") -> Record:
    """Withdraw the verdict in force: the filter's decision holds again (a new event, the old
    review kept)."""
    with transaction.atomic():
        record = (
            Record.objects.select_for_update(of=("self",))
            .select_related("review", "best_artifact")
            .get(pk=record.pk)
        )
        if record.review_id is None:
            raise InputError("this record has no review to undo")
        undone = record.review
        old_status = record.status
        record.review = None
        record.status = _status_for(record)
        record.save(update_fields=["review", "status"])
        best = record.best_artifact
        Event.objects.create(
            type=Event.Type.REVIEW_UNDONE,
            actor=actor,
            record=record,
            artifact=best,
            kind=best.kind if best else "",
            data={
                **_review_snapshot(record, old_status),
                "undone": {"verdict": undone.verdict, "review": undone.pk},
                "note": note,
            },
        )
    return record
