"""`ingest` killed with SIGKILL midway, then run again: every record exactly once.

The ingest runs as a real `manage.py` subprocess against a database both it and the test can
see: the PostgreSQL test database when the suite runs on PostgreSQL, else a temporary SQLite
file (the in-memory test database is invisible to another process).
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from tests.factories import demo_skill

ROOT = Path(__file__).resolve().parents[2]
TOTAL = 6000
COPIES = range(0, TOTAL, 50)


def manage(*args, env, **kwargs):
    return subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kwargs,
    )


@pytest.fixture
def database(tmp_path):
    """(environment for the subprocess, a function counting committed rows of a table)."""
    env = {**os.environ, "POIMEN_MANIFEST": str(tmp_path / "manifest.jsonl")}
    if connection.vendor == "postgresql":
        db = connection.settings_dict
        env["DATABASE_URL"] = (
            f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
        )

        def count(sql):
            with connection.cursor() as cursor:
                cursor.execute(sql)
                return cursor.fetchone()[0]

    else:
        path = tmp_path / "ingest.sqlite3"
        env["DATABASE_URL"] = f"sqlite:///{path}"
        assert manage("migrate", env=env).wait(timeout=120) == 0

        def count(sql):
            with sqlite3.connect(path, timeout=30) as db:
                return db.execute(sql).fetchone()[0]

    return env, count


@pytest.fixture
def input_file(tmp_path):
    path = tmp_path / "records.jsonl"
    skill = demo_skill("release-notes")
    with open(path, "w", encoding="utf-8") as stream:
        for i in range(TOTAL):
            text = (
                skill
                if i in COPIES
                else f"Note {i}: the weekly sync moved to Thursday, room {i % 7}."
            )
            stream.write(json.dumps({"id": f"r{i:05d}", "text": text}) + "\n")
    return path


@pytest.mark.django_db(transaction=True)
def test_ingest_killed_midway_and_run_again_stores_every_record_once(database, input_file):
    env, count = database
    skill = ROOT / "poimen" / "demo_data" / "artifacts" / "skill" / "release-notes" / "SKILL.md"
    assert manage("add_artifact", str(skill), env=env).wait(timeout=120) == 0

    ingest = manage("ingest", str(input_file), "--batch-size", "50", env=env)
    deadline = time.monotonic() + 120
    while count("SELECT COUNT(*) FROM poimen_record") < 500:
        if ingest.poll() is not None:
            pytest.fail(f"ingest ended before it could be killed: {ingest.stderr.read().decode()}")
        assert time.monotonic() < deadline
        time.sleep(0.01)
    ingest.send_signal(signal.SIGKILL)
    ingest.wait(timeout=30)
    assert ingest.returncode == -signal.SIGKILL
    stored_at_kill = count("SELECT COUNT(*) FROM poimen_record")
    assert 0 < stored_at_kill < TOTAL

    again = manage("ingest", str(input_file), "--batch-size", "50", env=env)
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err.decode()
    assert f"already ingested {stored_at_kill}" in out.decode()

    assert count("SELECT COUNT(*) FROM poimen_record") == TOTAL
    assert count("SELECT COUNT(DISTINCT external_id) FROM poimen_record") == TOTAL
    assert count("SELECT COUNT(*) FROM poimen_record WHERE status = 'excluded'") == len(COPIES)
    exclusions = "SELECT COUNT(*) FROM poimen_event WHERE type = 'derived_excluded'"
    assert count(exclusions) == len(COPIES)
    assert count("SELECT COUNT(DISTINCT record_id) FROM poimen_event") == len(COPIES)
    assert count("SELECT COUNT(*) FROM poimen_match") == len(COPIES)
