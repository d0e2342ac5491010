"""The worker's side of a queued ingest or refilter (poimen.tasks calls it): claim a sent
batch, check it against the index in force, and write it exactly once under its row's lock."""

import logging
from concurrent.futures import Future, ThreadPoolExecutor, wait

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from poimen.decision.checked import check_texts
from poimen.decision.index_version import LiveIndex
from poimen.decision.policies import Policies
from poimen.models import IngestRun, QueuedBatch, Record
from poimen.readers import Candidate
from poimen.services.ingest import IngestResult, _write_batch_once
from poimen.services.queued import REFILTER_COUNTS
from poimen.services.queued_payloads import payload_get
from poimen.services.refilter import RefilterResult, refilter_page

log = logging.getLogger(__name__)

# The indexes this worker process holds (all artifacts, or one kind's for a refilter of that
# kind), each built again when the index version moves.
live_indexes: dict[str | None, LiveIndex] = {}


def index_in_force(kind: str | None = None):
    if kind not in live_indexes:
        live_indexes[kind] = LiveIndex(kind=kind)
    return live_indexes[kind].current()[0]


def batch_claim(job: str, number: int, worker: str, new_delivery: bool) -> bool:
    """Count a delivery of the batch and name the worker on it (committed at once, so that a
    worker killed on the batch is counted too); False when it is written or failed already."""
    attempts = F("attempts") + 1 if new_delivery else F("attempts")
    return bool(
        QueuedBatch.objects.filter(job=job, number=number, state=QueuedBatch.State.SENT).update(
            attempts=attempts, worker=worker[:255]
        )
    )


def _locked_for_writing(job: str, number: int) -> QueuedBatch | None:
    """The batch's row, locked until the transaction ends; None when another delivery wrote
    it meanwhile, or when it has been tried too often (it is failed then)."""
    row = QueuedBatch.objects.select_for_update().get(job=job, number=number)
    if row.state != QueuedBatch.State.SENT:
        return None
    if row.attempts > settings.POIMEN_QUEUE_MAX_ATTEMPTS:
        row.state, row.done_at = QueuedBatch.State.FAILED, timezone.now()
        row.error = f"tried {row.attempts - 1} times, a worker died on it each time"
        row.save(update_fields=["state", "done_at", "error"])
        return None
    return row


def batch_fail(job: str, number: int, error: str) -> None:
    """Mark a batch failed for good (the waiting command reports its lines)."""
    QueuedBatch.objects.filter(job=job, number=number, state=QueuedBatch.State.SENT).update(
        state=QueuedBatch.State.FAILED, error=error[:2000], done_at=timezone.now()
    )


def _mark_written(row: QueuedBatch, worker: str, counts: dict) -> None:
    row.state, row.worker, row.counts = QueuedBatch.State.WRITTEN, worker[:255], counts
    row.done_at = timezone.now()
    row.save(update_fields=["state", "worker", "counts", "done_at"])


# A worker checks a batch in this many pieces, in a thread of its own, and writes each piece
# (in the batch's one transaction) while the next is checked: the write's waits on PostgreSQL
# (the COPYs, the server's index inserts, the commit) release the GIL, so one worker process
# keeps checking through them instead of checking, then writing.
CHECK_PIECES = 4
_checker: ThreadPoolExecutor | None = None


def _checks_ahead(derived_filter, pieces: list[list[Candidate]]) -> list[Future]:
    """Each piece's check, started in this process's checking thread, in order."""
    global _checker
    if _checker is None:  # made in the pool process itself, after Celery forked it
        _checker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="poimen-check")
    return [_checker.submit(check_texts, derived_filter, [c.text for c in p]) for p in pieces]


def _pieces(batch: list, count: int) -> list[list]:
    size = max(1, -(-len(batch) // count))
    return [batch[start : start + size] for start in range(0, len(batch), size)]


def queued_ingest_write(
    *,
    job: str,
    number: int,
    run_id: int,
    filtered: bool,
    worker: str,
    new_delivery: bool = True,
) -> None:
    """Check one sent batch against the index in force and store it exactly once: records
    stored meanwhile (by another ingest) are counted as already ingested."""
    if not batch_claim(job, number, worker, new_delivery):
        return
    batch = payload_get(job, number)
    if batch is None:
        log.warning(
            "batch %s of %s: its records are gone from the broker, left for the "
            "command to send again",
            number,
            job,
        )
        return
    artifact_index = index_in_force() if filtered else None
    pieces = _pieces(batch, CHECK_PIECES if filtered else 1)
    checks = _checks_ahead(artifact_index.filter, pieces) if filtered else None
    run = IngestRun(pk=run_id)  # only its id is written
    result = IngestResult(run=run)
    try:
        with transaction.atomic():
            row = _locked_for_writing(job, number)
            if row is None:
                return
            if filtered and Policies.load(lock=True) != artifact_index.policies:
                # A policy changed: each piece is checked again (by the write, under the
                # policies now locked), and never beside a check still running on the filter.
                wait(checks)
            # The command left out what was stored when it sent the batch; a record another
            # ingest stored since is caught by the unique constraint and counted as already
            # ingested.
            for at, piece in enumerate(pieces):
                _write_batch_once(
                    piece,
                    checks[at].result() if filtered else None,
                    run=run,
                    artifact_index=artifact_index,
                    result=result,
                )
            counts = {
                "new": result.new,
                "already": result.already,
                "excluded": dict(result.excluded),
                "redacted": dict(result.redacted),
            }
            _mark_written(row, worker, counts)
    finally:
        if checks:
            # Whatever ended the batch, its checks are over before the next batch's begin.
            for check in checks:
                check.cancel()
            wait(checks)


def queued_refilter_write(
    *,
    job: str,
    number: int,
    kind: str | None,
    first: int,
    last: int,
    worker: str,
    new_delivery: bool = True,
) -> None:
    """Check the stored records with ids `first` to `last` again, exactly once."""
    if not batch_claim(job, number, worker, new_delivery):
        return
    artifact_index = index_in_force()  # every artifact, whatever the kind (refilter.py)
    result = RefilterResult()
    with transaction.atomic():
        row = _locked_for_writing(job, number)
        if row is None:
            return
        page = list(
            Record.objects.select_related("review")
            .filter(pk__gte=first, pk__lte=last)
            .order_by("pk")
        )
        refilter_page(page, artifact_index=artifact_index, result=result)
        _mark_written(row, worker, {name: getattr(result, name) for name in REFILTER_COUNTS})
