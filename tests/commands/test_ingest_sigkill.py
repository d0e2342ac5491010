"""`ingest` killed with SIGKILL midway, then run again: every record exactly once.

The ingest runs as a real `manage.py` subprocess against a database both it and the test can
see (the `database` fixture).
"""

import json
import signal
import time

import pytest

from tests.factories import ROOT, demo_skill, manage

TOTAL = 6000
COPIES = range(0, TOTAL, 50)


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
    env, count = database.env, database.value
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
