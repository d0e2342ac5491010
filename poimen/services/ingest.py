"""records_ingest: read, check (in this process or in workers), write batch by batch.

The matcher runs outside transactions; each batch's records, matches and events are written in
one transaction, so a run killed midway leaves whole batches behind and a re-run adds exactly
what is missing.
"""

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from poimen.artifact_index import ArtifactIndex, artifact_index_load
from poimen.check_pool import BatchChecker
from poimen.checked import Checked
from poimen.copy_insert import insert_all
from poimen.derived_rule import stored_coverage
from poimen.models import (
    Artifact,
    Event,
    IngestRun,
    Match,
    Record,
)
from poimen.policies import Policies, report_floor
from poimen.readers import (
    MAX_SOURCE,
    Candidate,
    Problem,
    Skipped,
    content_sha256,
    read_sources,
)
from poimen.redaction import redaction_apply
from poimen.restatements import restatement_decision, restatement_kind
from poimen.services.batches import (
    checked_in_force,
    record_keys,
    restatement_excludes,
    stored_keys,
)
from poimen.services.common import InputError, batch_size_or_default

# Problems beyond this many are counted, not kept: memory stays flat on a broken input.
KEPT_PROBLEMS = 200


@dataclass
class IngestResult:
    run: IngestRun | None = None
    read: int = 0
    new: int = 0
    already: int = 0
    skipped: int = 0
    errors: int = 0
    excluded: Counter = field(default_factory=Counter)
    redacted: Counter = field(default_factory=Counter)
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
            "redacted": dict(sorted(self.redacted.items())),
            "skipped_by": dict(sorted(self.skipped_by.items())),
        }


def _exclusion_snapshot(
    record: Record, checked: Checked, artifact_index: ArtifactIndex
) -> tuple[int, dict]:
    """The decisive artifact's id and the event data of a derived_excluded event (or of a
    derived_redacted one: with the cut spans)."""
    kind, match = checked.decided_kind, checked.decided_match
    if match is None:  # decided by the kind's coverage: name its best artifact
        match = next((m for m in checked.matches if m.kind == kind), None)
        overlap, how = checked.coverage[kind], "coverage"
    else:
        overlap, how = match.overlap, "overlap"
    artifact = match.artifact if match else None
    return artifact_index.artifact_ids[artifact] if artifact else None, {
        **_record_snapshot(record),
        "artifact": (
            {"kind": kind, "name": artifact[1], "sha256": artifact[2]} if artifact else None
        ),
        "overlap": round(overlap, 6),
        "threshold": artifact_index.policies.threshold_for(kind),
        "decided_by": how,
        "shared": match.shared if match else None,
        **_cut_snapshot(record),
    }


def _cut_snapshot(record: Record) -> dict:
    """What a derived_redacted event says of the cut (nothing for an exclusion)."""
    if not record.cut_spans:
        return {}
    return {
        "spans": record.cut_spans,
        "cut_characters": sum(end - start for start, end in record.cut_spans),
    }


def _record_snapshot(record: Record) -> dict:
    """Where an excluded record came from, as its derived_excluded event keeps it."""
    return {
        "source": record.source,
        "external_id": record.external_id,
        "source_path": record.source_path,
        "position": record.position,
        "session": record.session,
        "role": record.role,
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
        "identity": candidate.identity,
        "source_path": candidate.source_path[:1000],
        "position": candidate.position,
        "session": candidate.session[:255],
        "role": candidate.role[:50],
        "metadata": candidate.metadata,
        "text": candidate.text,
        "sha256": content_sha256(candidate.text),
        "coverage": {},  # a dict of its own, never the shared default
        "cut_spans": [],
    }
    return Record(*[values[attname] for attname in _RECORD_ATTNAMES])


def apply_checked(record: Record, checked: Checked, artifact_index: ArtifactIndex) -> list[Match]:
    """Set the filter's decision on `record`; return its unsaved matches (for the floor up)."""
    floor = report_floor()
    kept = [m for m in checked.matches if m.overlap >= floor]
    record.derived = checked.derived
    record.coverage = stored_coverage(checked.coverage, checked.matches)
    best = max(kept, key=lambda m: m.overlap, default=None)
    record.best_overlap = round(best.overlap, 6) if best else 0.0
    record.best_artifact_id = artifact_index.artifact_ids[best.artifact] if best else None
    redaction_apply(record, kept, artifact_index.policies)
    return [
        Match(
            record=record,
            artifact_id=artifact_index.artifact_ids[m.artifact],
            overlap=m.overlap,
            artifact_containment=m.artifact_containment,
            record_containment=m.record_containment,
            shared=m.shared,
            threshold=m.threshold,
            spans=[list(span) for span in m.spans],
        )
        for m in kept
    ]


def _fresh_only(batch: list[Candidate], in_flight: set, result: IngestResult) -> list[Candidate]:
    """The candidates not stored yet, nor earlier in this input, nor in a batch still in flight."""
    seen = in_flight | stored_keys(batch)
    fresh = []
    for candidate in batch:
        keys = record_keys(candidate)
        if any(key in seen for key in keys):
            result.already += 1
            continue
        seen.update(keys)
        fresh.append(candidate)
    return fresh


# The event a record the filter decided derived gets, by the status that decision gave it.
_DECISION_EVENTS = {
    Record.Status.EXCLUDED: Event.Type.DERIVED_EXCLUDED,
    Record.Status.REDACTED: Event.Type.DERIVED_REDACTED,
}


def _write_batch(
    fresh: list[Candidate],
    checked: list[Checked] | None,
    *,
    run: IngestRun,
    artifact_index: ArtifactIndex | None,
    result: IngestResult,
    checked_under: Policies | None = None,
) -> None:
    """Store one batch's records, matches and exclusion events in one transaction, decided
    under the policies in force when it is written (held until it is)."""
    with transaction.atomic():
        if artifact_index is not None:
            checked = checked_in_force(fresh, checked, artifact_index, checked_under)
        records = [_record_from(candidate, run) for candidate in fresh]
        matches, exclusions, restatements = [], [], []
        for record, verdict in zip(records, checked or [None] * len(records), strict=True):
            if verdict is None:
                continue
            matches.extend(apply_checked(record, verdict, artifact_index))
            if verdict.derived:
                record.status = record.filter_status
                exclusions.append((record, verdict))
            elif restatement_excludes(record, artifact_index.policies):
                record.derived, record.status = True, Record.Status.EXCLUDED
                restatements.append(record)
        insert_all(records)
        for match in matches:
            match.record_id = match.record.pk
        insert_all(matches, with_pks=False)
        events = []
        for record, verdict in exclusions:
            artifact_id, data = _exclusion_snapshot(record, verdict, artifact_index)
            data["run"] = run.pk
            events.append(
                Event.objects.log(
                    _DECISION_EVENTS[record.status],
                    run=run,
                    record=record,
                    artifact_id=artifact_id,
                    kind=verdict.decided_kind,
                    data=data,
                    save=False,
                )
            )
        for record in restatements:
            kind = restatement_kind(record.metadata)
            data = _record_snapshot(record) | restatement_decision(kind, artifact_index.policies)
            events.append(
                Event.objects.log(
                    Event.Type.DERIVED_EXCLUDED,
                    run=run,
                    record=record,
                    kind=kind,
                    data=data | {"run": run.pk},
                    save=False,
                )
            )
        insert_all(events, with_pks=False)
    result.new += len(records)
    for record, verdict in exclusions:
        redacted = record.status == Record.Status.REDACTED
        (result.redacted if redacted else result.excluded)[verdict.decided_kind] += 1
    for record in restatements:
        result.excluded[restatement_kind(record.metadata)] += 1


def _write_batch_once(fresh, checked, *, run, artifact_index, result: IngestResult, **under):
    """Write a batch; when another ingest stored some of its records meanwhile (the unique
    constraints say so), write the rest and count those as already ingested."""
    try:
        _write_batch(fresh, checked, run=run, artifact_index=artifact_index, result=result, **under)
    except IntegrityError:
        stored = stored_keys(fresh)
        keep = [i for i, c in enumerate(fresh) if not any(k in stored for k in record_keys(c))]
        if len(keep) == len(fresh):
            raise  # not a race with another ingest: a real error
        result.already += len(fresh) - len(keep)
        _write_batch(
            [fresh[i] for i in keep],
            [checked[i] for i in keep] if checked is not None else None,
            run=run,
            artifact_index=artifact_index,
            result=result,
            **under,
        )
    # The counts so far, and a sign of life: a run that stops writing shows as unfinished.
    IngestRun.objects.filter(pk=run.pk).update(
        counts=result.as_counts(), last_batch_at=timezone.now()
    )


def _candidate_batches(items, size: int, result: IngestResult, on_problem, on_skipped=None):
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
            if on_skipped:
                on_skipped(str(item))
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
    on_skipped: Callable[[str], None] | None = None,
) -> IngestResult:
    """Read `paths`, check each new record against every artifact, store records, matches and
    exclusion events batch by batch. Records already ingested (same source and id) are left.

    With `workers`, batches are checked in that many forked processes while this one reads
    and writes; the results are written in input order either way."""
    paths = [str(p) for p in paths]
    batch_size = batch_size_or_default(batch_size)
    workers = settings.POIMEN_INGEST_WORKERS if workers is None else workers
    if workers < 0:
        raise InputError(f"workers is 0 (check in this process) or more, not {workers}")
    if source is not None and not 0 < len(source) <= MAX_SOURCE:
        raise InputError(f"a source label has 1 to {MAX_SOURCE} characters")
    artifact_index = artifact_index_load() if filtered else None
    policies = artifact_index.policies if artifact_index else Policies.load()
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
        Event.objects.log(
            Event.Type.FILTER_DISABLED,
            actor=actor,
            run=run,
            data={"run": run.pk, "paths": paths, "source": source},
        )
    result = IngestResult(run=run)
    items = read_sources(
        paths,
        max_record_bytes=settings.POIMEN_MAX_RECORD_BYTES,
        max_document_bytes=settings.POIMEN_MAX_DOCUMENT_BYTES,
        default_source=source,
    )
    batches = _candidate_batches(items, batch_size, result, on_problem, on_skipped)

    def write(done):
        for fresh, checked in done:
            for candidate in fresh:
                in_flight.difference_update(record_keys(candidate))
            _write_batch_once(
                fresh,
                checked,
                run=run,
                artifact_index=artifact_index,
                result=result,
                checked_under=policies,
            )
            if on_progress:
                on_progress(result)

    in_flight: set = set()
    if artifact_index is None:
        for batch in batches:
            write([(_fresh_only(batch, in_flight, result), None)])
    else:
        with BatchChecker(artifact_index.filter, workers=workers) as checker:
            for batch in batches:
                fresh = _fresh_only(batch, in_flight, result)
                in_flight.update(key for c in fresh for key in record_keys(c))
                write(checker.submit(fresh, [c.text for c in fresh]))
            write(checker.drain())
    run.counts = result.as_counts()
    run.finished_at = timezone.now()
    run.save(update_fields=["counts", "finished_at"])
    return result
