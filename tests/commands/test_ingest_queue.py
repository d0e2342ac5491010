"""`ingest --queue` with a real redis-server and real `celery -A poimen worker` processes: it
stores what a local ingest stores, record for record, and every record exactly once when a
worker is SIGKILLed mid-batch or the broker restarts mid-run."""

import json
import os
import re
import signal
import time

import pytest

from tests.factories import NEAR_MISS, ROOT, demo_skill, manage

SKILLS = ROOT / "poimen" / "demo_data" / "artifacts" / "skill"
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("queue_database")]


def write_input(path, total):
    """`total` lines: copies of two skills, near misses, notes, one id twice, one bad line."""
    copies = {"release-notes": demo_skill("release-notes")}
    copies["incident-review"] = demo_skill("incident-review")
    with open(path, "w", encoding="utf-8") as stream:
        for i in range(total):
            if i % 40 == 0:
                text = copies["release-notes" if i % 80 else "incident-review"]
            elif i % 40 == 7:
                text = NEAR_MISS
            else:
                text = f"Note {i}: the weekly sync moved to Thursday, room {i % 7}."
            role = "assistant" if i % 2 else "user"
            stream.write(json.dumps({"id": f"r{i:05d}", "text": text, "role": role}) + "\n")
        stream.write(json.dumps({"id": "r00003", "text": "the same id again"}) + "\n")
        stream.write('{"id": "broken", "text": \n')
    return path


def registered(env):
    for name in ("release-notes", "incident-review"):
        assert manage("add_artifact", str(SKILLS / name / "SKILL.md"), env=env).wait(60) == 0


def ingest(env, path, *args, timeout=60):
    process = manage("ingest", "--batch-size", "100", *args, str(path), env=env)
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out.decode(), err.decode()


def summary(out):
    """The summary line without the run's number."""
    line = next(line for line in out.splitlines() if line.startswith("run "))
    return re.sub(r"^run \d+", "run N", line)


def stored(database, source):
    """Every record of `source` with its decision, matches and events, by external id."""
    records = database.rows(
        "SELECT external_id, text, sha256, derived, status, best_overlap, best_artifact_id,"
        " coverage, position, session, role, metadata FROM poimen_record"
        f" WHERE source = '{source}' ORDER BY external_id"
    )
    matches = database.rows(
        "SELECT r.external_id, m.artifact_id, m.overlap, m.artifact_containment,"
        " m.record_containment, m.shared, m.threshold FROM poimen_match m"
        f" JOIN poimen_record r ON r.id = m.record_id WHERE r.source = '{source}'"
        " ORDER BY 1, 2"
    )
    events = []
    for external_id, type_, kind, artifact_id, data in database.rows(
        "SELECT r.external_id, e.type, e.kind, e.artifact_id, e.data FROM poimen_event e"
        f" JOIN poimen_record r ON r.id = e.record_id WHERE r.source = '{source}' ORDER BY 1, 2"
    ):
        data = json.loads(data) if isinstance(data, str) else data
        data = {k: v for k, v in data.items() if k not in ("run", "source")}
        events.append((external_id, type_, kind, artifact_id, data))
    return records, matches, events


@pytest.fixture
def command():
    """command(env, *args) -> a running `manage.py ARGS`, killed at the end if still running."""
    started = []

    def start(env, *args):
        started.append(manage(*args, env=env))
        return started[-1]

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def kill_inside_a_batch(database, worker, name, run) -> int:
    """SIGKILL the worker `name` while it is inside a batch; return the batch's number. The
    worker is frozen first (SIGSTOP) and killed only if its batch is still unwritten then,
    else let go until it takes the next one."""
    claimed = (
        "SELECT COALESCE(MAX(number), 0) FROM poimen_queuedbatch"
        f" WHERE state = 'sent' AND worker LIKE '{name}@%'"
    )
    deadline = time.monotonic() + 40
    while True:
        assert time.monotonic() < deadline and run.poll() is None, "no batch was ever taken"
        number = database.value(claimed)
        if not number:
            time.sleep(0.01)
            continue
        os.killpg(worker.pid, signal.SIGSTOP)
        time.sleep(0.2)  # a commit already on its way lands
        state = f"SELECT state FROM poimen_queuedbatch WHERE number = {number}"
        if database.value(state) == "sent":
            os.killpg(worker.pid, signal.SIGKILL)
            return number
        os.killpg(worker.pid, signal.SIGCONT)


def queue_env(database, broker, **extra):
    return {**database.env, "CELERY_BROKER_URL": broker, **extra}


def test_a_queued_ingest_stores_what_a_local_ingest_stores(
    database, broker, queue_workers, tmp_path
):
    env = queue_env(database, broker)
    registered(env)
    path = write_input(tmp_path / "records.jsonl", 1200)
    queue_workers(env, "one"), queue_workers(env, "two")

    code, out, err = ingest(env, path, "--queue", "--verbose", "--source", "lab")
    local_code, local_out, local_err = ingest(
        {**env, "CELERY_BROKER_URL": ""}, path, "--verbose", "--source", "lab-local"
    )

    assert code == local_code == 2, err  # the bad line, reported the same way
    assert summary(out) == summary(local_out).replace("lab-local", "lab")
    assert err.replace(str(path), "P") == local_err.replace(str(path), "P")
    queued, local = stored(database, "lab"), stored(database, "lab-local")
    # 30 copies excluded, 30 near misses cut (a skill's steps pasted into a turn)
    assert len(queued[0]) == 1200 and len(queued[2]) == 60
    assert queued == local
    workers = database.rows(
        "SELECT COUNT(DISTINCT worker), SUM(size), MIN(state), MAX(state) FROM poimen_queuedbatch"
    )
    assert workers == [(2, 1200, "written", "written")]


def test_a_worker_killed_mid_batch_leaves_every_record_stored_once(
    database, broker, queue_workers, command, tmp_path
):
    # Batches of 1000 take the worker about a second: long enough to be killed inside one.
    env = queue_env(database, broker, POIMEN_QUEUE_VISIBILITY_TIMEOUT="3")
    registered(env)
    path = write_input(tmp_path / "records.jsonl", 8000)
    doomed = queue_workers(env, "doomed")
    run = command(env, "ingest", "--queue", "--batch-size", "1000", "--source", "lab", str(path))
    number = kill_inside_a_batch(database, doomed, "doomed", run)
    queue_workers(env, "survivor")

    out, err = run.communicate(timeout=55)
    assert run.returncode == 2, err.decode()  # the bad line only
    assert "read 8001, new 8000, already ingested 1" in out.decode()
    again = f"SELECT attempts FROM poimen_queuedbatch WHERE number = {number}"
    assert database.value(again) >= 2  # the batch it died inside, delivered again
    assert_once(database, 8000, copies=200)


def test_a_batch_that_fails_for_good_is_reported_by_line_and_the_rest_is_kept(
    database, broker, queue_workers, command, tmp_path
):
    # One delivery a batch allowed: the batch a worker is killed on fails for good.
    env = queue_env(database, broker, POIMEN_QUEUE_VISIBILITY_TIMEOUT="3")
    registered(env)
    path = write_input(tmp_path / "records.jsonl", 4000)
    doomed = queue_workers({**env, "POIMEN_QUEUE_MAX_ATTEMPTS": "1"}, "doomed")
    run = command(env, "ingest", "--queue", "--batch-size", "1000", "--source", "lab", str(path))
    number = kill_inside_a_batch(database, doomed, "doomed", run)
    queue_workers({**env, "POIMEN_QUEUE_MAX_ATTEMPTS": "1"}, "survivor")

    out, err = run.communicate(timeout=55)
    failed = database.rows(
        "SELECT number, size, error FROM poimen_queuedbatch WHERE state = 'failed'"
    )
    assert len(failed) == 1 and "a worker died on it" in failed[0][2]
    number, size, _ = failed[0]
    lines = [line for line in err.decode().splitlines() if "not stored" in line]
    assert len(lines) == size and all(line.startswith(f"{path}:") for line in lines)
    assert f"batch {number} failed" in lines[0]
    assert run.returncode == 2 and f"errors {size + 1}" in out.decode()
    assert database.value("SELECT COUNT(*) FROM poimen_record") == 4000 - size

    again = ingest(env, path, "--queue", "--source", "lab")
    assert f"new {size}, already ingested {4000 - size + 1}" in again[1], again[2]
    assert_once(database, 4000, copies=100, batches_failed=1)


def test_a_broker_restarted_mid_run_loses_and_doubles_nothing(
    database, redis_server, queue_workers, command, tmp_path
):
    # A batch in flight at the stop may come back by the visibility timeout or, if the broker
    # lost it, by the command sending it again: both must write it once. The resend is brought
    # inside the test's time (its default is 600 s); once, on a loaded CI machine, the run
    # outwaited the 55 s below.
    env = queue_env(
        database,
        redis_server.url,
        POIMEN_QUEUE_VISIBILITY_TIMEOUT="4",
        POIMEN_QUEUE_RESEND_AFTER="15",
    )
    registered(env)
    path = write_input(tmp_path / "records.jsonl", 6000)
    queue_workers(env, "one")
    run = command(env, "ingest", "--queue", "--batch-size", "200", "--source", "lab", str(path))
    deadline = time.monotonic() + 40
    while database.value("SELECT COUNT(*) FROM poimen_record") < 600:
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.01)
    redis_server.stop()
    time.sleep(1)
    redis_server.start()

    out, err = run.communicate(timeout=55)
    assert run.returncode == 2, err.decode()
    assert "read 6001, new 6000, already ingested 1" in out.decode()
    assert_once(database, 6000, copies=150)


def assert_once(database, total, *, copies, batches_failed=0):
    assert database.value("SELECT COUNT(*) FROM poimen_record") == total
    assert database.value("SELECT COUNT(DISTINCT external_id) FROM poimen_record") == total
    excluded = "SELECT COUNT(*) FROM poimen_record WHERE status = 'excluded'"
    assert database.value(excluded) == copies
    events = "SELECT COUNT(*) FROM poimen_event WHERE type = 'derived_excluded'"
    assert database.value(events) == copies
    # as many near misses (write_input), each a skill's steps pasted into a turn: cut
    redacted = "SELECT COUNT(*) FROM poimen_event WHERE type = 'derived_redacted'"
    assert database.value(redacted) == copies
    assert database.value("SELECT COUNT(DISTINCT record_id) FROM poimen_event") == 2 * copies
    unwritten = "SELECT COUNT(*) FROM poimen_queuedbatch WHERE state <> 'written'"
    assert database.value(unwritten) == batches_failed


def test_an_artifact_registered_mid_life_is_in_force_on_a_running_worker(
    database, broker, queue_workers, tmp_path
):
    env = queue_env(database, broker)
    copy = demo_skill("release-notes")
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text(json.dumps({"id": "a", "text": copy}) + "\n", encoding="utf-8")
    second.write_text(json.dumps({"id": "b", "text": copy}) + "\n", encoding="utf-8")
    queue_workers(env, "one")

    code, out, err = ingest(env, first, "--queue")
    assert code == 0 and "excluded 0 (none)" in out, err
    registered(env)
    code, out, err = ingest(env, second, "--queue")
    assert code == 0 and "excluded 1 (skill 1)" in out, err


def test_a_worker_that_loses_the_database_tries_again_and_writes_once(
    database, broker, queue_workers, command, tmp_path
):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("cuts a worker's PostgreSQL connections; SQLite has none to cut")
    env = queue_env(database, broker)
    registered(env)
    path = write_input(tmp_path / "records.jsonl", 6000)
    queue_workers({**env, "PGAPPNAME": "poimen-worker-under-test"}, "one")
    run = command(env, "ingest", "--queue", "--batch-size", "200", "--source", "lab", str(path))
    cut = (
        "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity"
        " WHERE application_name = 'poimen-worker-under-test'"
    )
    # Cut its connections at least twice once records are being written, whatever the worker
    # is doing: a cut may find none while it waits to reconnect, so keep trying until two land.
    deadline, cuts = time.monotonic() + 40, 0
    while database.value("SELECT COUNT(*) FROM poimen_record") == 0:
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.05)
    while cuts < 2 and run.poll() is None and time.monotonic() < deadline:
        landed = database.value(cut)
        cuts += landed
        time.sleep(1 if landed else 0.1)

    out, err = run.communicate(timeout=55)
    assert cuts >= 2
    assert run.returncode == 2, err.decode()
    assert "read 6001, new 6000, already ingested 1" in out.decode()
    assert_once(database, 6000, copies=150)


def test_records_gone_from_the_broker_are_sent_again_and_written_once(
    database, broker, queue_workers, command, tmp_path
):
    # A batch's records wait in Redis beside its message; a broker that lost them (restarted
    # without its append-only file) gets them again with the batch, sent again by the command.
    import redis

    env = queue_env(database, broker, POIMEN_QUEUE_RESEND_AFTER="8")
    registered(env)
    path = write_input(tmp_path / "records.jsonl", 400)
    run = command(env, "ingest", "--queue", "--batch-size", "100", "--source", "lab", str(path))
    client = redis.Redis.from_url(broker)
    queue_workers(env, "one")
    # The records are taken away until the worker has had each of the 4 batches once.
    tried = "SELECT COUNT(*) FROM poimen_queuedbatch WHERE attempts >= 1"
    deadline = time.monotonic() + 40
    while database.value(tried) < 4:
        assert time.monotonic() < deadline and run.poll() is None
        if keys := client.keys("poimen:batch:*"):
            client.delete(*keys)
        time.sleep(0.005)

    out, err = run.communicate(timeout=55)
    assert run.returncode == 2, err.decode()  # the bad line only
    assert "read 401, new 400, already ingested 1" in out.decode()
    assert database.value("SELECT MIN(attempts) FROM poimen_queuedbatch") >= 2
    assert_once(database, 400, copies=10)
    assert client.keys("poimen:batch:*") == []  # the command cleared what it sent
