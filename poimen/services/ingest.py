"""records_ingest: read, check (in this process or in workers), write batch by batch.

The matcher runs outside transactions; each batch's records, matches and events are written in
one transaction, so a run killed midway leaves whole batches behind and a re-run adds exactly
what is missing.
"""

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from poimen.db.copy_insert import insert_all
from poimen.decision.artifact_index import ArtifactIndex, artifact_index_load
from poimen.decision.check_pool import BatchChecker
from poimen.decision.checked import Checked
from poimen.decision.policies import Policies
from poimen.decision.record_decision import decision_event, record_decided, thresholds_in_force
from poimen.models import (
    Artifact,
    Event,
    IngestRun,
    Record,
)
from poimen.readers import (
    Candidate,
    Problem,
    Skipped,
    read_sources,
    record_keys,
    source_label_problem,
)
from poimen.services.batches import checked_in_force, stored_keys
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
    # Records checked again at their write, the policies having changed since their check
    # (in this process; not one of the run's counts).
    rechecked: int = 0

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


@dataclass
class WrittenBatch:
    """A batch as written: its records with their verdicts, and the index they were decided
    under (the one it was checked with, or the one of the policies in force at its write when
    they had changed; None: unfiltered)."""

    records: list[tuple[Record, Checked | None]]
    artifact_index: ArtifactIndex | None


def _write_batch(
    fresh: list[Candidate],
    checked: list[Checked] | None,
    *,
    run: IngestRun,
    artifact_index: ArtifactIndex | None,
    result: IngestResult,
    actor=None,
) -> WrittenBatch:
    """Store one batch's records, matches and exclusion events in one transaction, decided
    under the policies in force when it is written (held until it is); returns the records
    written with their verdicts, and the index they were decided under."""
    checked_with = artifact_index
    with transaction.atomic():
        if artifact_index is not None:
            checked, artifact_index = checked_in_force(fresh, checked, artifact_index)
        verdicts = checked or [None] * len(fresh)
        records, matches, decided = [], [], []
        for candidate, verdict in zip(fresh, verdicts, strict=True):
            record, decision, own = record_decided(candidate, verdict, artifact_index, run=run)
            records.append(record)
            matches.extend(own)
            if record.status != Record.Status.EVIDENCE:
                decided.append((record, decision))
        insert_all(records)
        for match in matches:
            match.record_id = match.record.pk
        insert_all(matches, with_pks=False)
        ids = artifact_index.artifact_ids if artifact_index is not None else {}
        events = [
            decision_event(
                record,
                decision,
                artifact_index.policies,
                artifact_id=ids.get(decision.match.artifact) if decision.match else None,
                data={"run": run.pk},
                actor=actor,
                run=run,
            )
            for record, decision in decided
        ]
        Event.objects.log_many(events)
    result.new += len(records)
    if artifact_index is not checked_with:
        result.rechecked += len(records)
    for record, decision in decided:
        redacted = record.status == Record.Status.REDACTED
        (result.redacted if redacted else result.excluded)[decision.kind] += 1
    return WrittenBatch(list(zip(records, verdicts, strict=True)), artifact_index)


def _write_batch_once(
    fresh, checked, *, run, artifact_index, result: IngestResult, **under
) -> WrittenBatch:
    """Write a batch; when another ingest stored some of its records meanwhile (the unique
    constraints say so), write the rest and count those as already ingested."""
    try:
        return _write_batch(
            fresh, checked, run=run, artifact_index=artifact_index, result=result, **under
        )
    except IntegrityError:
        stored = stored_keys(fresh)
        keep = [i for i, c in enumerate(fresh) if not any(k in stored for k in record_keys(c))]
        if len(keep) == len(fresh):
            raise  # not a race with another ingest: a real error
        result.already += len(fresh) - len(keep)
        return _write_batch(
            [fresh[i] for i in keep],
            [checked[i] for i in keep] if checked is not None else None,
            run=run,
            artifact_index=artifact_index,
            result=result,
            **under,
        )


def candidates_ingest(
    batches: Iterable[list[Candidate]],
    *,
    run: IngestRun,
    artifact_index: ArtifactIndex | None,
    result: IngestResult,
    workers: int = 0,
    actor=None,
) -> Iterator[WrittenBatch]:
    """Check and store batches of candidates: each record exactly once by its keys (those
    stored already, or earlier in the input, are counted as already), its matches and its
    exclusion events in the batch's transaction, decided under the policies in force when it
    is written (checked again when they are not those of `artifact_index`). Yields
    each batch as written, in input order, with the index its records were decided under.
    `artifact_index` None: unfiltered.

    The one way records are stored: the ingest command and the API both call it.
    With `workers`, batches are checked in that many forked processes while this one writes."""
    in_flight: set = set()
    under = {"actor": actor}

    def write(done, checker=None):
        nonlocal artifact_index
        for (fresh, checked_with), checked in done:
            for candidate in fresh:
                in_flight.difference_update(record_keys(candidate))
            written = _write_batch_once(
                fresh, checked, run=run, artifact_index=checked_with, result=result, **under
            )
            if checker is not None and written.artifact_index.policies != artifact_index.policies:
                # The policies changed: the batches not checked yet are checked under them
                # (once), those in flight are checked again by their writes.
                artifact_index = written.artifact_index
                checker.use(artifact_index.filter)
            yield written

    if artifact_index is None:
        for batch in batches:
            yield from write([((_fresh_only(batch, in_flight, result), None), None)])
        return
    with BatchChecker(artifact_index.filter, workers=workers) as checker:
        for batch in batches:
            fresh = _fresh_only(batch, in_flight, result)
            in_flight.update(key for c in fresh for key in record_keys(c))
            submitted = checker.submit((fresh, artifact_index), [c.text for c in fresh])
            yield from write(submitted, checker)
        yield from write(checker.drain(), checker)


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


def check_source_label(source: str | None) -> None:
    problem = None if source is None else source_label_problem(source)
    if problem:
        raise InputError(problem)


def read_input(paths: list[str], source: str | None) -> Iterator:
    return read_sources(
        paths,
        max_record_bytes=settings.POIMEN_MAX_RECORD_BYTES,
        max_document_bytes=settings.POIMEN_MAX_DOCUMENT_BYTES,
        default_source=source,
    )


def run_start(
    *, paths: list[str], source: str | None, filtered: bool, policies: Policies, actor=None
) -> IngestRun:
    """The run an ingest writes into, with the thresholds in force (and, unfiltered, the
    filter_disabled event): the same for a local and a queued ingest."""
    run = IngestRun.objects.create(
        source=(source or ", ".join(paths))[:255],
        filtered=filtered,
        thresholds=thresholds_in_force(
            policies, Artifact.objects.values_list("kind", flat=True).order_by("kind").distinct()
        ),
    )
    if not filtered:
        Event.objects.log(
            Event.Type.FILTER_DISABLED,
            actor=actor,
            run=run,
            data={"run": run.pk, "paths": paths, "source": source},
        )
    return run


def run_heartbeat(run: IngestRun, result: IngestResult) -> None:
    """The counts so far, and a sign of life: a run that stops writing shows as unfinished.
    Written by whoever adds up the run's batches (the ingest, or the queued command)."""
    IngestRun.objects.filter(pk=run.pk).update(
        counts=result.as_counts(), last_batch_at=timezone.now()
    )


def run_finish(run: IngestRun, result: IngestResult) -> None:
    run.counts = result.as_counts()
    run.finished_at = timezone.now()
    run.save(update_fields=["counts", "finished_at"])


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
    check_source_label(source)
    artifact_index = artifact_index_load() if filtered else None
    policies = artifact_index.policies if artifact_index else Policies.load()
    run = run_start(paths=paths, source=source, filtered=filtered, policies=policies, actor=actor)
    result = IngestResult(run=run)
    items = read_input(paths, source)
    batches = _candidate_batches(items, batch_size, result, on_problem, on_skipped)
    stored = candidates_ingest(
        batches,
        run=run,
        artifact_index=artifact_index,
        result=result,
        workers=workers,
        actor=actor,
    )
    for _ in stored:
        run_heartbeat(run, result)
        if on_progress:
            on_progress(result)
    run_finish(run, result)
    return result
