"""A database connection killed mid-ingest: one line naming it, exit 2, and the same command
run again stores the rest (PostgreSQL: the connection is killed with pg_terminate_backend)."""

import json
import os
import time

import pytest

from tests.factories import manage

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="a server's connection to kill is PostgreSQL's",
    ),
]


def test_a_lost_connection_is_one_line_exit_2_and_the_run_resumes(database, tmp_path):
    path = tmp_path / "records.jsonl"
    lines = [
        json.dumps({"id": f"r{i}", "text": f"note {i}: " + "words " * 60}) for i in range(20000)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {
        **database.env,
        "POIMEN_INGEST_BATCH_SIZE": "200",
        "POIMEN_INGEST_WORKERS": "0",
        "PGAPPNAME": "poimen-ingest-to-kill",
    }
    ingest = manage("ingest", str(path), env=env)
    deadline = time.monotonic() + 120
    while database.value("SELECT count(*) FROM poimen_record") < 400:
        assert time.monotonic() < deadline and ingest.poll() is None
        time.sleep(0.2)
    killed = database.rows(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        " WHERE application_name = 'poimen-ingest-to-kill'"
    )
    assert killed and all(ok for (ok,) in killed)
    out, errors = ingest.communicate(timeout=120)
    errors = errors.decode()
    assert ingest.returncode == 2, errors[-3000:]
    assert "Traceback" not in errors
    (line,) = [line for line in errors.splitlines() if "connection was lost" in line]
    assert line.startswith("ingest failed: the database connection was lost")
    again = manage("ingest", str(path), env={**env, "PGAPPNAME": "poimen-again"})
    out, errors = again.communicate(timeout=600)
    assert again.returncode == 0, errors.decode()[-2000:]
    assert database.value("SELECT count(*) FROM poimen_record") == 20000
