"""A worker whose DATABASE_URL is not the command's refuses the batches at once, by name, and
the command stops saying so, instead of a run that waits forever for batches "done" elsewhere."""

import json
import time

import pytest

from tests.factories import manage

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("queue_database")]


def test_a_worker_on_another_database_is_refused_by_name(database, broker, queue_workers, tmp_path):
    env = {**database.env, "CELERY_BROKER_URL": broker}
    other = {**env, "DATABASE_URL": f"sqlite:///{tmp_path / 'other.sqlite3'}"}
    assert manage("migrate", "--verbosity", "0", env=other).wait(timeout=120) == 0
    queue_workers(other, "elsewhere")
    path = tmp_path / "records.jsonl"
    path.write_text(
        "".join(json.dumps({"id": f"r{i}", "text": f"note {i}"}) + "\n" for i in range(50))
    )
    started = time.monotonic()
    run = manage("ingest", "--queue", "--batch-size", "10", str(path), env=env)
    out, errors = run.communicate(timeout=120)
    errors = errors.decode()
    assert run.returncode == 2, errors
    assert time.monotonic() - started < 60
    assert "worker elsewhere@" in errors and "writes to sqlite" in errors
    assert "not to the command's postgresql" in errors and "DATABASE_URL" in errors
    assert database.value("SELECT count(*) FROM poimen_record") == 0
