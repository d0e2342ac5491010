"""The queue's tasks, thin over poimen.services.queued: one batch each, acknowledged only once
written (settings: acks late, rejected when the worker is lost, one reserved at a time).

A worker that loses the database tries the batch again later; any other error fails the batch
for good, and the waiting command reports its input lines.
"""

from celery.utils.log import get_task_logger
from django.db import InterfaceError, OperationalError, close_old_connections, connections

from poimen.celery import app
from poimen.services import queued

log = get_task_logger(__name__)
DATABASE_LOST = (OperationalError, InterfaceError)


def _retry_later(task, error) -> None:
    """The database went away: drop the connections and try the batch again after a while."""
    for connection in connections.all():
        connection.close_if_unusable_or_obsolete()
        connection.close()
    log.warning(
        "batch %s of %s: database unreachable (%s); trying again", *task.request.args[:2], error
    )
    raise task.retry(exc=error, countdown=min(2**task.request.retries, 10))


def _run(task, write, job: str, number: int, **kwargs) -> None:
    close_old_connections()
    try:
        write(job=job, number=number, worker=task.request.hostname or "", **kwargs)
    except DATABASE_LOST as error:
        if task.request.retries >= task.max_retries:
            raise
        _retry_later(task, error)
    except Exception as error:
        log.exception("batch %s of %s failed", number, job)
        queued.batch_fail(job, number, f"{type(error).__name__}: {error}")


@app.task(bind=True, name=queued.INGEST_TASK, max_retries=60)
def ingest_batch(self, job, number, run_id, filtered, candidates):
    _run(
        self,
        queued.queued_ingest_write,
        job,
        number,
        run_id=run_id,
        filtered=filtered,
        candidates=candidates,
    )


@app.task(bind=True, name=queued.REFILTER_TASK, max_retries=60)
def refilter_batch(self, job, number, kind, first, last):
    _run(self, queued.queued_refilter_write, job, number, kind=kind, first=first, last=last)
