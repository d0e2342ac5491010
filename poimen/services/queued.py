"""Ingest and refilter over the queue: the command splits its input into batches and sends
them to `celery -A poimen worker` processes (poimen.tasks), which check and write them.

Each batch has a QueuedBatch row, made before it is sent. A worker writes the batch's records
and marks the row written in one transaction, under the row's lock, so a batch delivered twice
is written once; the command waits on those rows (the database, not the broker, says what was
written), adds up their counts into the same summary a local run gives, and reports a batch
that failed for good with its input lines.
"""

import dataclasses
import logging
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path

from django.conf import settings
from django.db import connection

from poimen.db.readiness import database_identity
from poimen.decision.policies import Policies
from poimen.models import IngestRun, QueuedBatch, Record
from poimen.readers import Candidate, Problem, record_keys
from poimen.services.common import InputError, batch_size_or_default
from poimen.services.ingest import (
    KEPT_PROBLEMS,
    IngestResult,
    _candidate_batches,
    _fresh_only,
    check_source_label,
    read_input,
    run_finish,
    run_heartbeat,
    run_start,
)
from poimen.services.queued_payloads import (
    batch_ended_wait,
    batch_refusal,
    payload_key,
    payload_put,
    payload_store,
)
from poimen.services.refilter import RefilterResult, refilter_finish, refilter_start

log = logging.getLogger(__name__)
INGEST_TASK = "poimen.ingest_batch"
REFILTER_TASK = "poimen.refilter_batch"
# The waiting command asks the database which batches ended when a worker says one did
# (queued_payloads.batch_ended_tell), and after this many seconds without word anyway. It used
# to ask 20 times a second: 1.6 ms of CPU a look, a sixth of the command's CPU a record under
# load, on cores the workers need.
POLL_SECONDS = 0.5
# A queued command whose batches no worker has taken this long says so (once): with no worker
# running it would otherwise wait in silence, POIMEN_QUEUE_RESEND_AFTER a delivery.
NO_WORKER_WARNING_SECONDS = 30.0
# Publishing waits out a broker restart this long before the command gives up.
PUBLISH_RETRY = {"max_retries": 60, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}


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


def celery_app():
    """The Celery app, imported when a queued path first needs it: only those need Celery at
    all (a server, a command or a test without a broker never loads it)."""
    from poimen.celery import app

    return app


# --- the command's side: send, wait, add up ------------------------------------------------


class _Batches:
    """The batches of one queued command in flight: sent, not yet written or failed."""

    def __init__(
        self, job: str, task: str, run: IngestRun | None = None, *, put=None, on_waiting=None
    ):
        self.app, self.job, self.task, self.run = celery_app(), job, task, run
        # put(job, number, payload): stores a batch's records where its worker finds them
        self.put = put
        # on_waiting(message): told once when no worker has taken a batch for a while
        self.on_waiting, self.first_sent = on_waiting, None
        self.number = 0
        self.pending: dict[int, tuple[object, list, float]] = {}  # number: payload, args, sent
        self.database = database_identity()

    def send(self, payload, size: int, args: list) -> None:
        self.number += 1
        if self.first_sent is None:
            self.first_sent = time.monotonic()
        QueuedBatch.objects.create(job=self.job, number=self.number, run=self.run, size=size)
        self.pending[self.number] = (payload, args, 0.0)
        self._publish(self.number)

    def _publish(self, number: int) -> None:
        from kombu.exceptions import OperationalError as BrokerError
        from kombu.utils.url import maybe_sanitize_url

        payload, args, _ = self.pending[number]
        try:
            if self.put is not None:
                self.put(self.job, number, payload)
            self.app.send_task(
                self.task,
                args=[self.job, number, *args],
                # the database the batch belongs in: a worker on another refuses it, by name
                kwargs={"database": self.database},
                retry=True,
                retry_policy=PUBLISH_RETRY,
            )
        except (BrokerError, *_redis_errors()) as error:
            raise QueueUnavailable(
                f"the queue's broker {maybe_sanitize_url(settings.CELERY_BROKER_URL)} cannot "
                f"be reached ({error}); "
                f"batches 1 to {self.number - 1} of {self.job} were sent, run it again to "
                "send the rest (what was written is kept)"
            ) from None
        self.pending[number] = (payload, args, time.monotonic())

    def done(self, *, below: int) -> Iterable[tuple[object, QueuedBatch]]:
        """Wait until fewer than `below` batches are in flight; yield each batch as it ends
        (its payload and row). A batch still not ended POIMEN_QUEUE_RESEND_AFTER seconds after
        it was sent is sent again (a broker that lost it); a delivery too many does nothing."""
        while len(self.pending) >= below:
            refused = batch_refusal(self.job)
            if refused:
                raise QueueUnavailable(refused)
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
            self._warn_if_no_worker(now)
            for number, (_, _, sent) in list(self.pending.items()):
                if now - sent > settings.POIMEN_QUEUE_RESEND_AFTER:
                    self._publish(number)
            batch_ended_wait(self.job, POLL_SECONDS)

    def _warn_if_no_worker(self, now: float) -> None:
        if self.on_waiting is None or self.first_sent is None:
            return
        if now - self.first_sent < NO_WORKER_WARNING_SECONDS:
            return
        taken = QueuedBatch.objects.filter(job=self.job, attempts__gt=0).exists()
        if not taken:
            self.on_waiting(
                f"warning: no worker has taken a batch of {self.job} in "
                f"{NO_WORKER_WARNING_SECONDS:.0f} s: is `celery -A poimen worker` running on a "
                "machine that reaches the broker (CELERY_BROKER_URL) and the database? The "
                "batches wait for one; Ctrl-C stops waiting, and a run again sends only what "
                "was not written"
            )
        self.on_waiting = None  # said once, or a worker is there


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
    on_waiting: Callable[[str], None] | None = None,
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
    batches = _Batches(f"ingest-{run.pk}", INGEST_TASK, run, put=payload_put, on_waiting=on_waiting)
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


# What a queued batch adds up (its row's counts, JSON): the numbers, not the moves.
REFILTER_COUNTS = [f.name for f in dataclasses.fields(RefilterResult) if f.type is int]


def records_refilter_queued(
    *,
    kind: str | None = None,
    batch_size: int | None = None,
    actor=None,
    on_progress: Callable[[RefilterResult], None] | None = None,
    on_waiting: Callable[[str], None] | None = None,
) -> RefilterResult:
    """records_refilter with the pages checked and written by the queue's workers: this
    process only splits the stored records into ranges of ids. A range that failed for good
    raises, naming it (a refilter run again checks every record anyway)."""
    queue_configured()
    batch_size = batch_size_or_default(batch_size)
    started_at = refilter_start(kind)
    result, failed = RefilterResult(), []
    batches = _Batches(f"refilter-{uuid.uuid4().hex}", REFILTER_TASK, on_waiting=on_waiting)

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
