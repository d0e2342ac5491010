"""`refilter --queue` with a real redis-server and real workers: records ingested before an
artifact was registered, refiltered by the queue, end as records ingested after it."""

import json
import re

import pytest
import redis

from tests.factories import NEAR_MISS, ROOT, demo_skill, manage

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("queue_database")]
SKILL = ROOT / "poimen" / "demo_data" / "artifacts" / "skill" / "release-notes" / "SKILL.md"


def run(env, *args):
    process = manage(*args, env=env)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err.decode()
    return out.decode()


def decisions(database, source):
    return database.rows(
        "SELECT r.external_id, r.derived, r.status, r.best_overlap, r.coverage, m.overlap,"
        " m.shared FROM poimen_record r LEFT JOIN poimen_match m ON m.record_id = r.id"
        f" WHERE r.source = '{source}' ORDER BY 1"
    )


def test_a_queued_refilter_decides_as_an_ingest_with_the_artifact_would(
    database, broker, queue_workers, tmp_path
):
    env = {**database.env, "CELERY_BROKER_URL": broker}
    path = tmp_path / "records.jsonl"
    with open(path, "w", encoding="utf-8") as stream:
        for i in range(600):
            text = {0: demo_skill("release-notes"), 3: NEAR_MISS}.get(i % 20, f"Note {i}.")
            stream.write(json.dumps({"id": f"r{i:04d}", "text": text}) + "\n")
    run(env, "ingest", "--source", "before", str(path))
    run(env, "add_artifact", str(SKILL))
    # The registration's own refilter went to the queue (services/refilter_affected.py); lost
    # before a worker took it, the stored copies are left for a full refilter to move.
    redis.Redis.from_url(broker).flushdb()
    run(env, "ingest", "--source", "after", str(path))
    queue_workers(env, "one"), queue_workers(env, "two")

    out = run(env, "refilter", "--queue", "--batch-size", "100")

    # the copies excluded, the skill's steps pasted into a turn cut (NEAR_MISS)
    assert re.search(
        r"checked 1200: 30 newly excluded, 30 newly redacted, 0 released, 0 held", out
    ), out
    assert decisions(database, "before") == decisions(database, "after")
    assert database.value("SELECT COUNT(*) FROM poimen_queuedbatch WHERE state = 'written'") == 12
    refiltered = "SELECT COUNT(*) FROM poimen_event WHERE type = 'records_refiltered'"
    assert database.value(refiltered) == 1

    # what reaches evidence copies nothing, and a refilter with nothing changed moves nothing
    assert "0 still derived or leaking" in run(env, "verify_derived")
    again = run(env, "refilter", "--queue", "--batch-size", "100")
    assert re.search(r"checked 1200: 0 newly excluded, 0 newly redacted, 0 released", again)
    assert decisions(database, "before") == decisions(database, "after")
