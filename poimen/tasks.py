"""The queue's tasks, thin over poimen.services.queued_worker: one batch each, acknowledged
only once written (settings: acks late, rejected when the worker is lost, one reserved at a time).

A worker that loses the database keeps the batch and tries it again after a pause (a batch
redelivered by the broker later would do, but holding it spares a broker round trip and an ETA
message that a broker restart could strand); any other error fails the batch for good, and the
waiting command reports its input lines.
"""

import time

from celery.utils.log import get_task_logger
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections, connections

from poimen.celery import app
from poimen.db.readiness import database_identity
from poimen.services import queued, queued_payloads, queued_worker, refilter_affected

log = get_task_logger(__name__)
DATABASE_LOST = (OperationalError, InterfaceError)


def _run(task, write, job: str, number: int, database: str | None = None, **kwargs) -> None:
    try:
        try:
            ours = database_identity() if database else None
        except DATABASE_LOST:
            ours = database  # unreachable now: _write waits for it
        if database and ours != database:
            # Written here, the batch would be "done" where the command never looks: refused,
            # and the command told at once, by name.
            why = (
                f"worker {task.request.hostname or '?'} writes to {ours}, not to the "
                f"command's {database}: give the workers the command's DATABASE_URL"
            )
            log.error("batch %s of %s refused: %s", number, job, why)
            queued_payloads.batch_refusal_tell(job, why)
            return
        _write(task, write, job, number, **kwargs)
    finally:
        queued_payloads.batch_ended_tell(job, number)


def _write(task, write, job: str, number: int, **kwargs) -> None:
    worker = task.request.hostname or ""
    for attempt in range(1, settings.POIMEN_QUEUE_MAX_ATTEMPTS + 1):
        close_old_connections()
        try:
            write(job=job, number=number, worker=worker, new_delivery=attempt == 1, **kwargs)
            return
        except DATABASE_LOST as error:
            for connection in connections.all():
                connection.close()
            log.warning(
                "batch %s of %s: database unreachable (%s), try %s", number, job, error, attempt
            )
            time.sleep(min(0.25 * 2**attempt, 10))
        except Exception as error:
            log.exception("batch %s of %s failed", number, job)
            queued_worker.batch_fail(job, number, f"{type(error).__name__}: {error}")
            return
    # Still no database: leave the batch unacknowledged-in-effect (sent, not written); the
    # waiting command sends it again after POIMEN_QUEUE_RESEND_AFTER.
    log.error("batch %s of %s: database unreachable, left for a later delivery", number, job)


@app.task(bind=True, name=queued.INGEST_TASK)
def ingest_batch(self, job, number, run_id, filtered, database=None):
    _run(
        self,
        queued_worker.queued_ingest_write,
        job,
        number,
        database,
        run_id=run_id,
        filtered=filtered,
    )


@app.task(bind=True, name=queued.REFILTER_TASK)
def refilter_batch(self, job, number, kind, first, last, database=None):
    _run(
        self,
        queued_worker.queued_refilter_write,
        job,
        number,
        database,
        kind=kind,
        first=first,
        last=last,
    )


@app.task(name=refilter_affected.REFILTER_AFFECTED_TASK)
def refilter_affected_task(artifact_ids, actor_id=None):
    """A registration's refilter (services/refilter_affected.py): run again if lost, it
    decides the same."""
    close_old_connections()
    result = refilter_affected.registered_refilter(artifact_ids, actor_id)
    log.info("refilter of artifacts %s: %s records checked", artifact_ids, result.checked)
