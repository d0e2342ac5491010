"""Ingest and refilter over the queue: the command splits its input into batches and sends
them to `celery -A poimen worker` processes (poimen.tasks), which check and write them.

Each batch has a QueuedBatch row, made before it is sent. A worker writes the batch's records
and marks the row written in one transaction, under the row's lock, so a batch delivered twice
is written once; the command waits on those rows (the database, not the broker, says what was
written), adds up their counts into the same summary a local run gives, and reports a batch
that failed for good with its input lines.
"""

import dataclasses
import json
import logging
import time
import uuid
import zlib
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from poimen.checked import check_texts
from poimen.index_version import LiveIndex
from poimen.models import Artifact, IngestRun, QueuedBatch, Record
from poimen.policies import Policies
from poimen.readers import Candidate, Problem
from poimen.services.batches import record_keys
from poimen.services.common import InputError, batch_size_or_default
from poimen.services.decisions import (
    RefilterResult,
    refilter_finish,
    refilter_page,
    refilter_start,
)
from poimen.services.ingest import (
    KEPT_PROBLEMS,
    IngestResult,
    _candidate_batches,
    _fresh_only,
    _write_batch_once,
    check_source_label,
    read_input,
    run_finish,
    run_heartbeat,
    run_start,
)

log = logging.getLogger(__name__)
INGEST_TASK = "poimen.ingest_batch"
REFILTER_TASK = "poimen.refilter_batch"
# How often the waiting command asks the database which batches are done.
POLL_SECONDS = 0.05
# Publishing waits out a broker restart this long before the command gives up.
PUBLISH_RETRY = {"max_retries": 60, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}


# A queued ingest's records wait in the broker's Redis under a key of their own, compressed;
# the task message names the key. Celery decodes every message's body in the worker's main
# process before handing it to the pool process, which decodes it again: a megabyte of records
# in the message cost the main process as much CPU a batch as a third of the batch's checking.
PAYLOAD_PREFIX = "poimen:batch:"
# Left by a command that was killed: gone after a day.
PAYLOAD_EXPIRY_SECONDS = 24 * 3600
_payload_store = None


def payload_store():
    """This process's client of the broker's Redis, which waits out a restart of it as the
    Celery connection does (a minute, then the error)."""
    global _payload_store
    if _payload_store is None:
        import redis
        from redis.backoff import ExponentialBackoff
        from redis.retry import Retry

        _payload_store = redis.Redis.from_url(
            settings.CELERY_BROKER_URL,
            retry=Retry(ExponentialBackoff(cap=1, base=0.05), 60),
            retry_on_error=[redis.ConnectionError, redis.TimeoutError],
        )
    return _payload_store


def payload_key(job: str, number: int) -> str:
    return f"{PAYLOAD_PREFIX}{job}:{number}"


def payload_put(job: str, number: int, candidates: list[Candidate]) -> None:
    rows = [dataclasses.asdict(c) for c in candidates]
    packed = zlib.compress(json.dumps(rows).encode("utf-8"), 1)
    payload_store().set(payload_key(job, number), packed, ex=PAYLOAD_EXPIRY_SECONDS)


def payload_get(job: str, number: int) -> list[Candidate] | None:
    """The batch's candidates; None when the broker lost them (the command sends them again)."""
    packed = payload_store().get(payload_key(job, number))
    if packed is None:
        return None
    return [Candidate(**row) for row in json.loads(zlib.decompress(packed))]


class QueueUnavailable(InputError):
    """No broker configured, or the broker cannot be reached."""


def queue_configured() -> str:
    """The broker URL; a named problem when there is none, or no database to share."""
    if not settings.CELERY_BROKER_URL:
        raise QueueUnavailable(
            "--queue needs CELERY_BROKER_URL, the Redis URL the workers share "
            "(e.g. redis://127.0.0.1:6379/0); without it, leave --queue off to check locally"
        )
    if connection.vendor == "sqlite":
        raise QueueUnavailable(
            "--queue needs a database the workers share, PostgreSQL (DATABASE_URL="
            "postgres://...): SQLite is one machine's file, written by one process at a time; "
            "leave --queue off to check locally"
        )
    return settings.CELERY_BROKER_URL


# --- the command's side: send, wait, add up ------------------------------------------------


class _Batches:
    """The batches of one queued command in flight: sent, not yet written or failed."""

    def __init__(self, job: str, task: str, run: IngestRun | None = None, *, put=None):
        from poimen.celery import app  # only a queued command needs Celery at all

        self.app, self.job, self.task, self.run = app, job, task, run
        # put(job, number, payload): stores a batch's records where its worker finds them
        self.put = put
        self.number = 0
        self.pending: dict[int, tuple[object, list, float]] = {}  # number: payload, args, sent

    def send(self, payload, size: int, args: list) -> None:
        self.number += 1
        QueuedBatch.objects.create(job=self.job, number=self.number, run=self.run, size=size)
        self.pending[self.number] = (payload, args, 0.0)
        self._publish(self.number)

    def _publish(self, number: int) -> None:
        from kombu.exceptions import OperationalError as BrokerError

        payload, args, _ = self.pending[number]
        try:
            if self.put is not None:
                self.put(self.job, number, payload)
            self.app.send_task(
                self.task,
                args=[self.job, number, *args],
                retry=True,
                retry_policy=PUBLISH_RETRY,
            )
        except (BrokerError, *_redis_errors()) as error:
            raise QueueUnavailable(
                f"the queue's broker {settings.CELERY_BROKER_URL} cannot be reached ({error}); "
                f"batches 1 to {self.number - 1} of {self.job} were sent, run it again to "
                "send the rest (what was written is kept)"
            ) from None
        self.pending[number] = (payload, args, time.monotonic())

    def done(self, *, below: int) -> Iterable[tuple[object, QueuedBatch]]:
        """Wait until fewer than `below` batches are in flight; yield each batch as it ends
        (its payload and row). A batch still not ended POIMEN_QUEUE_RESEND_AFTER seconds after
        it was sent is sent again (a broker that lost it); a delivery too many does nothing."""
        while len(self.pending) >= below:
            rows = QueuedBatch.objects.filter(
                job=self.job, number__in=list(self.pending), state__in=QueuedBatch.ENDED
            )
            ended = list(rows)
            if ended and self.put is not None:
                payload_store().delete(*(payload_key(self.job, row.number) for row in ended))
            for row in ended:
                yield self.pending.pop(row.number)[0], row
            if ended:
                continue
            now = time.monotonic()
            for number, (_, _, sent) in list(self.pending.items()):
                if now - sent > settings.POIMEN_QUEUE_RESEND_AFTER:
                    self._publish(number)
            time.sleep(POLL_SECONDS)


def _redis_errors() -> tuple:
    import redis

    return (redis.ConnectionError, redis.TimeoutError)


def failed_lines(candidates: list[Candidate], row: QueuedBatch) -> list[str]:
    """A failed batch's records, one named problem each: where it was read, and why."""
    why = f"not stored: batch {row.number} failed after {row.attempts} attempts ({row.error})"
    return [str(Problem(c.source_path, c.position, why)) for c in candidates]


def records_ingest_queued(
    *,
    paths: Iterable[str | Path],
    source: str | None = None,
    filtered: bool = True,
    batch_size: int | None = None,
    actor=None,
    on_problem: Callable[[str], None] | None = None,
    on_progress: Callable[[IngestResult], None] | None = None,
    on_skipped: Callable[[str], None] | None = None,
) -> IngestResult:
    """records_ingest with the checking and writing done by the queue's workers: the input is
    read and split here, each batch of records not stored yet is sent, and the run ends with
    the counts a local run gives (a batch that failed for good counted in errors, its lines
    reported)."""
    queue_configured()
    paths = [str(p) for p in paths]
    batch_size = batch_size_or_default(batch_size)
    check_source_label(source)
    run = run_start(
        paths=paths, source=source, filtered=filtered, policies=Policies.load(), actor=actor
    )
    result = IngestResult(run=run)
    batches = _Batches(f"ingest-{run.pk}", INGEST_TASK, run, put=payload_put)
    in_flight: set = set()

    def settle(below: int) -> None:
        for fresh, row in batches.done(below=below):
            for candidate in fresh:
                in_flight.difference_update(record_keys(candidate))
            if row.state == QueuedBatch.State.WRITTEN:
                result.new += row.counts["new"]
                result.already += row.counts["already"]
                result.excluded.update(row.counts["excluded"])
                result.redacted.update(row.counts["redacted"])
            else:
                result.errors += len(fresh)
                for line in failed_lines(fresh, row):
                    if len(result.problems) < KEPT_PROBLEMS:
                        result.problems.append(line)
                    if on_problem:
                        on_problem(line)
            run_heartbeat(run, result)
            if on_progress:
                on_progress(result)

    items = read_input(paths, source)
    for batch in _candidate_batches(items, batch_size, result, on_problem, on_skipped):
        fresh = _fresh_only(batch, in_flight, result)
        if not fresh:
            continue
        in_flight.update(key for c in fresh for key in record_keys(c))
        batches.send(fresh, len(fresh), [run.pk, filtered])
        settle(below=settings.POIMEN_QUEUE_IN_FLIGHT)
    settle(below=1)
    run_finish(run, result)
    return result


REFILTER_COUNTS = [f.name for f in dataclasses.fields(RefilterResult)]


def records_refilter_queued(
    *,
    kind: str | None = None,
    batch_size: int | None = None,
    actor=None,
    on_progress: Callable[[RefilterResult], None] | None = None,
) -> RefilterResult:
    """records_refilter with the pages checked and written by the queue's workers: this
    process only splits the stored records into ranges of ids. A range that failed for good
    raises, naming it (a refilter run again checks every record anyway)."""
    queue_configured()
    batch_size = batch_size_or_default(batch_size)
    started_at = refilter_start(kind)
    result, failed = RefilterResult(), []
    batches = _Batches(f"refilter-{uuid.uuid4().hex}", REFILTER_TASK)

    def settle(below: int) -> None:
        for (first, last), row in batches.done(below=below):
            if row.state == QueuedBatch.State.WRITTEN:
                for name in REFILTER_COUNTS:
                    setattr(result, name, getattr(result, name) + row.counts[name])
            else:
                failed.append(f"records {first} to {last}: {row.error}")
            if on_progress:
                on_progress(result)

    last = 0
    while True:
        ids = list(
            Record.objects.filter(pk__gt=last)
            .order_by("pk")
            .values_list("pk", flat=True)[:batch_size]
        )
        if not ids:
            break
        batches.send((ids[0], ids[-1]), len(ids), [kind, ids[0], ids[-1]])
        last = ids[-1]
        settle(below=settings.POIMEN_QUEUE_IN_FLIGHT)
    settle(below=1)
    if failed:
        raise InputError(
            f"{len(failed)} batches of the refilter failed (the others are written; run it "
            "again to check every record): " + "; ".join(failed[:20])
        )
    refilter_finish(kind=kind, started_at=started_at, result=result, actor=actor)
    return result


# --- the worker's side ---------------------------------------------------------------------

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


def _written(row: QueuedBatch, worker: str, counts: dict) -> None:
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
    # What the pieces are checked under (each write checks its piece again if the policies in
    # force differ).
    checked_under = artifact_index.policies if filtered else None
    run = IngestRun(pk=run_id)  # only its id is written
    result = IngestResult(run=run)
    try:
        with transaction.atomic():
            row = _locked_for_writing(job, number)
            if row is None:
                return
            if filtered and Policies.load(lock=True) != checked_under:
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
                    checked_under=checked_under,
                )
            counts = {
                "new": result.new,
                "already": result.already,
                "excluded": dict(result.excluded),
                "redacted": dict(result.redacted),
            }
            _written(row, worker, counts)
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
    artifact_index = index_in_force(kind)
    kinds = set(Artifact.objects.values_list("kind", flat=True).distinct())
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
        refilter_page(page, artifact_index=artifact_index, kind=kind, kinds=kinds, result=result)
        _written(row, worker, {name: getattr(result, name) for name in REFILTER_COUNTS})
