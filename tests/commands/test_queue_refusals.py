"""`--queue` without a broker, or on SQLite, is a named problem (exit 2), not a traceback."""

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from poimen.models import IngestRun


@pytest.mark.parametrize(
    "command", [["ingest", "--queue", "records.jsonl"], ["refilter", "--queue"]]
)
def test_queue_without_a_broker_names_the_setting(db, settings, command):
    settings.CELERY_BROKER_URL = ""
    with pytest.raises(CommandError, match="--queue needs CELERY_BROKER_URL") as error:
        call_command(*command)
    assert error.value.returncode == 2 and not IngestRun.objects.exists()


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the SQLite refusal, on SQLite")
def test_queue_on_sqlite_asks_for_postgresql(db, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    with pytest.raises(CommandError, match="needs a database the workers share") as error:
        call_command("ingest", "--queue", "records.jsonl")
    assert error.value.returncode == 2 and not IngestRun.objects.exists()


def test_queue_with_local_workers_is_refused(db, settings):
    with pytest.raises(CommandError, match="--workers is for a local run"):
        call_command("ingest", "--queue", "--workers", "2", "records.jsonl")
