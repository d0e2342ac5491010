"""A queued command whose batches no worker takes says so once, instead of waiting in silence
(POIMEN_QUEUE_RESEND_AFTER a delivery, POIMEN_QUEUE_MAX_ATTEMPTS times)."""

import pytest

from poimen.models import QueuedBatch
from poimen.services import queued


class _Stop(Exception):
    pass


def _batches(monkeypatch, told):
    monkeypatch.setattr(queued, "NO_WORKER_WARNING_SECONDS", 0.0)
    monkeypatch.setattr(queued, "batch_ended_wait", lambda job, seconds: None)
    monkeypatch.setattr(queued._Batches, "_publish", lambda self, number: None)

    def on_waiting(message):
        told.append(message)
        raise _Stop  # the wait would go on: the test has seen what it needed

    batches = queued._Batches("ingest-test", queued.INGEST_TASK, on_waiting=on_waiting)
    batches.send(["a record"], 1, [])
    return batches


@pytest.mark.django_db
def test_batches_no_worker_takes_are_said_once(monkeypatch):
    told = []
    batches = _batches(monkeypatch, told)
    with pytest.raises(_Stop):
        list(batches.done(below=1))
    (message,) = told
    assert message.startswith("warning: no worker has taken a batch of ingest-test in 0 s")
    assert "celery -A poimen worker" in message and "redis://" not in message


@pytest.mark.django_db
def test_a_worker_that_took_a_batch_silences_the_warning(monkeypatch):
    told = []
    batches = _batches(monkeypatch, told)
    QueuedBatch.objects.filter(job="ingest-test").update(attempts=1)
    polls = []

    def wait(job, seconds):
        polls.append(job)
        if len(polls) == 3:
            raise _Stop  # three polls, then the test stops it

    monkeypatch.setattr(queued, "batch_ended_wait", wait)
    with pytest.raises(_Stop):
        list(batches.done(below=1))
    assert told == []


@pytest.mark.django_db
def test_a_broker_that_cannot_be_reached_is_named_without_its_password(monkeypatch, settings):
    from kombu.exceptions import OperationalError

    settings.CELERY_BROKER_URL = "redis://:s3cret@queue.internal:6379/0"
    batches = queued._Batches("ingest-test", queued.INGEST_TASK)

    def refuse(*args, **kwargs):
        raise OperationalError("Connection refused")

    monkeypatch.setattr(batches.app, "send_task", refuse)
    with pytest.raises(queued.QueueUnavailable) as raised:
        batches.send(["a record"], 1, [])
    message = str(raised.value)
    assert "s3cret" not in message
    assert message.startswith("the queue's broker redis://:**@queue.internal:6379/0 cannot be")
