"""Shared fixtures. Builders (make_artifact, make_record) keep the tests' setup to one line."""

import itertools

import pytest

from tests.factories import demo_skill


@pytest.fixture(autouse=True)
def static_files_uncollected(settings):
    """Pages render without a collectstatic run: the hashed, compressed storage of production
    needs one (tests/deploy runs it, through `serve`, in an installed wheel)."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """A password hash that costs nothing: the login tests try many passwords."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# What lets a test reach Django's database: pytest-django refuses every other test a
# connection ("Database access not allowed"), so a test without one of these cannot touch it.
DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "live_server",
}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Mark `uses_db` each test that can touch the test database (a django_db mark or a
    fixture that reaches one of DATABASE_FIXTURES, however indirectly). CI's second pass, on
    SQLite, runs those alone (`-m 'uses_db and not e2e'`): what else there is does not depend
    on the database, and the first pass has run it. A test whose subprocess picks up
    DATABASE_URL from the environment goes through the `database` fixture, which needs a
    django_db(transaction=True) mark."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if item.get_closest_marker("django_db") or fixtures & DATABASE_FIXTURES:
            item.add_marker(pytest.mark.uses_db)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item):
    """A transactional test ends in a flush, which is a TRUNCATE of every table, and on
    PostgreSQL the event table refuses TRUNCATE (migration 0007). The test database user is a
    superuser: let the flush past the trigger the way pg_restore does, for that session only."""
    transactional = "transactional_db" in item.fixturenames or "live_server" in item.fixturenames
    marker = item.get_closest_marker("django_db")
    transactional = transactional or bool(marker and marker.kwargs.get("transaction"))
    connection = None
    if transactional:
        from django.db import connection

        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET session_replication_role = replica")
        else:
            connection = None
    try:
        return (yield)
    finally:
        if connection is not None:
            connection.close()  # the next test starts on a session with every trigger on


@pytest.fixture(autouse=True)
def manifest_in_tmp(settings, tmp_path):
    """No test appends to the project's own vault/.artifacts.jsonl."""
    settings.POIMEN_MANIFEST = tmp_path / "vault" / ".artifacts.jsonl"
    return settings.POIMEN_MANIFEST


@pytest.fixture
def make_artifact(db):
    """make_artifact(kind="skill", name=..., text=...) -> a registered Artifact."""
    from poimen.services import artifact_register

    def make(*, kind="skill", name="release-notes", text=None):
        text = text if text is not None else demo_skill(name)
        return artifact_register(kind=kind, name=name, text=text).artifact

    return make


@pytest.fixture
def make_record(db):
    """make_record(text=..., **fields) -> a Record as a run would have stored it."""
    from poimen.models import IngestRun, Record
    from poimen.readers import content_sha256

    numbers = itertools.count(1)
    runs = []

    def make(*, text="An ordinary note about the week.", source="tests", **fields):
        if not runs:
            runs.append(IngestRun.objects.create(source="tests"))
        fields.setdefault("external_id", f"rec-{next(numbers)}")
        return Record.objects.create(
            run=runs[0], source=source, text=text, sha256=content_sha256(text), **fields
        )

    return make


# --- the review desk: users and a small realistic data set -----------------------------------

UNRELATED = (
    "The nightly backup job failed because the disk on the replica filled up with WAL files. "
    "I raised the retention alert threshold, cleaned the archive directory and asked the "
    "platform team whether the replica can get a bigger volume before the quarter closes. "
    "Next week we will rehearse a restore from the offsite copy to check the runbook still "
    "works end to end, including the part where the credentials are fetched from the vault."
)


@pytest.fixture
def reviewer(db):
    """A member of the reviewers group: may judge, may not tune thresholds."""
    from django.contrib.auth.models import Group, Permission, User

    group, _ = Group.objects.get_or_create(name="reviewers")
    group.permissions.add(
        Permission.objects.get(content_type__app_label="poimen", codename="review_record")
    )
    user = User.objects.create_user("rita", password="rita-reviews-things")
    user.groups.add(group)
    return user


@pytest.fixture
def tuner(reviewer):
    """A reviewer who may also change a kind's threshold."""
    from django.contrib.auth.models import Permission, User

    user = User.objects.create_user("tom", password="tom-tunes-thresholds")
    user.groups.add(*reviewer.groups.all())
    user.user_permissions.add(
        Permission.objects.get(content_type__app_label="poimen", codename="tune_threshold")
    )
    return user


@pytest.fixture
def desk_data(db, tmp_path, make_artifact):
    """Three skills and records ingested through the real pipeline: a verbatim copy, a copy
    behind a <script> line, a near miss (a third of a skill inside a longer turn), unrelated
    text. Returns a dict of the records by role. The skill kind's paste_words is set past any
    passage, so that the near miss stays the evidence the desk's tests review (a pasted
    passage is cut under the default: tests/services/test_pasted_passages.py)."""
    import json

    from poimen.models import KindPolicy, Record
    from poimen.services import records_ingest

    KindPolicy.objects.create(kind="skill", paste_words=1_000_000)

    make_artifact(name="release-notes")
    make_artifact(name="incident-review")
    migrations = demo_skill("postgres-migrations")
    make_artifact(name="postgres-migrations", text=migrations)
    half = migrations[: len(migrations) // 3]
    lines = [
        {"id": "verbatim", "role": "assistant", "text": demo_skill("release-notes")},
        {
            "id": "script",
            "role": "assistant",
            "text": "<script>alert('owned')</script>\n" + demo_skill("incident-review"),
        },
        {"id": "near", "role": "assistant", "text": f"{UNRELATED}\n\n{half}\n\n{UNRELATED}"},
        {"id": "unrelated", "role": "user", "text": UNRELATED},
    ]
    path = tmp_path / "desk-records.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    records_ingest(paths=[path], source="desk-tests")
    return {r.external_id: r for r in Record.objects.filter(source="desk-tests")}


@pytest.fixture
def desk_data_redacted(desk_data, tmp_path):
    """desk_data and one more record, ingested the same way: a whole skill pasted between two
    genuine paragraphs, which its kind's policy (redact, the default) redacts."""
    import json

    from poimen.models import Record
    from poimen.services import records_ingest

    text = f"{UNRELATED}\n\n{demo_skill('release-notes')}\n\n{UNRELATED}"
    path = tmp_path / "desk-pasted.jsonl"
    path.write_text(json.dumps({"id": "pasted", "role": "user", "text": text}) + "\n")
    records_ingest(paths=[path], source="desk-tests")
    return {**desk_data, "pasted": Record.objects.get(source="desk-tests", external_id="pasted")}


@pytest.fixture(autouse=True)
def fresh_desk_caches():
    """The desk caches aggregates under keys made of the newest row ids; a rolled-back test
    database can hand the same ids to the next test, so every test starts with empty caches."""
    from poimen.selectors import caches_clear

    caches_clear()
    yield


@pytest.fixture(autouse=True)
def fresh_live_index():
    """The API's index follows the highest artifact id; a rolled-back test database can hand
    the same id to another artifact in the next test, so every test starts without one."""
    from poimen.decision.index_version import live_index

    live_index.reset()
    yield


# --- whole processes: a database other processes see, a broker, queue workers ---------------


class SharedDatabase:
    """A database both the test and other processes see: `env` for a subprocess, `rows(sql)`
    and `value(sql)` to read what they committed."""

    def __init__(self, env, rows):
        self.env, self.rows = env, rows

    def value(self, sql):
        return self.rows(sql)[0][0]


@pytest.fixture
def database(tmp_path):
    """A SharedDatabase: the PostgreSQL test database when the suite runs on PostgreSQL, else a
    temporary SQLite file (an in-memory one is invisible to another process). Tests using it
    need django_db(transaction=True)."""
    import os
    import sqlite3

    from django.db import connection

    from tests.factories import manage

    env = {**os.environ, "POIMEN_MANIFEST": str(tmp_path / "manifest.jsonl")}
    if connection.vendor == "postgresql":
        db = connection.settings_dict
        env["DATABASE_URL"] = (
            f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
        )

        def rows(sql):
            with connection.cursor() as cursor:
                cursor.execute(sql)
                return cursor.fetchall()

    else:
        path = tmp_path / "shared.sqlite3"
        env["DATABASE_URL"] = f"sqlite:///{path}"
        assert manage("migrate", env=env).wait(timeout=120) == 0

        def rows(sql):
            with sqlite3.connect(path, timeout=30) as db:
                return db.execute(sql).fetchall()

    return SharedDatabase(env, rows)


class RedisServer:
    """A private redis-server of the test's own on a free port, append-only (what a broker
    restart keeps), that the test can stop and start again."""

    def __init__(self, directory):
        import socket

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.directory = directory
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = None

    def start(self):
        import subprocess
        import time

        import redis

        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir",
             str(self.directory), "--appendonly", "yes", "--save", "", "--protected-mode", "no"],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis.from_url(self.url)
        for _ in range(100):
            try:
                client.ping()
                return self
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server on port {self.port} did not start")

    def stop(self):
        """SHUTDOWN, as a service manager's restart does (the append-only file is kept)."""
        import redis

        if self.process is None:
            return
        try:
            redis.Redis.from_url(self.url).shutdown()
        except redis.ConnectionError:
            pass  # SHUTDOWN answers by closing the connection
        self.process.wait(timeout=30)
        self.process = None


def redis_needed():
    """redis-server is a test requirement (CI installs it): without it, say how to get it."""
    import os
    import shutil

    if shutil.which("redis-server") is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs Debian's redis-server (.ci/run installs it)")
        pytest.skip("no redis-server binary: `apt-get install redis-server` to run queue tests")


@pytest.fixture
def queue_database():
    """The queue's tests need the database its workers share: PostgreSQL (--queue refuses
    SQLite, and tests/commands/test_queue_refusals.py shows it)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the queue runs on PostgreSQL only (DATABASE_URL=postgres://...)")


@pytest.fixture
def broker(tmp_path):
    """The broker URL for a test: the instance .ci/run started (POIMEN_TEST_REDIS_URL), emptied
    first, or else a private redis-server of the test's own."""
    import os

    import redis

    redis_needed()
    url = os.environ.get("POIMEN_TEST_REDIS_URL")
    if url:
        redis.Redis.from_url(url).flushdb()
        yield url
        return
    server = RedisServer(tmp_path).start()
    yield server.url
    server.stop()


@pytest.fixture
def redis_server(tmp_path):
    """A private redis-server the test may restart (the broker-restart test)."""
    redis_needed()
    directory = tmp_path / "redis"
    directory.mkdir()
    server = RedisServer(directory).start()
    yield server
    server.stop()


@pytest.fixture
def queue_workers(tmp_path):
    """start(env, name) -> a real `celery -A poimen worker` process (one pool process) in a
    session of its own, so that a test can SIGKILL it whole. All are stopped at the end."""
    import os
    import signal
    import subprocess
    import sys

    from tests.factories import ROOT

    started = []

    def start(env, name):
        log = open(tmp_path / f"worker-{name}.log", "wb")  # noqa: SIM115 - closed at the end
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "poimen", "worker", "--concurrency", "1",
             "--hostname", f"{name}@%h", "--without-mingle", "--without-gossip",
             "--loglevel", "INFO"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        process.log = tmp_path / f"worker-{name}.log"
        started.append((process, log))
        return process

    yield start
    for process, log in started:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=15)
        except ProcessLookupError:
            pass  # killed whole by the test already
        log.close()


# --- the desk for a team: more reviewers, borderline records --------------------------------


@pytest.fixture
def make_reviewer(reviewer):
    """make_reviewer("sam") -> another member of the reviewers group (password: name * 3)."""
    from django.contrib.auth.models import User

    def make(name: str):
        user = User.objects.create_user(name, password=name * 3)
        user.groups.add(*reviewer.groups.all())
        return user

    return make


@pytest.fixture
def borderline(desk_data, make_record):
    """borderline(n, overlap=0.81) -> n excluded copies of a skill just over its threshold."""
    artifact = desk_data["verbatim"].best_artifact

    def make(n: int, overlap: float = 0.81, **fields):
        fields = {"status": "excluded", "derived": True, **fields}
        return [
            make_record(
                text=f"A borderline copy {i} of the release notes skill.",
                best_overlap=overlap,
                best_artifact=artifact,
                **fields,
            )
            for i in range(n)
        ]

    return make


@pytest.fixture
def chained_as_committed(request):
    """On PostgreSQL events are chained into the audit log as their transaction commits (a
    deferred trigger, poimen/ledger/audit_chain.py); a test's transaction never commits, so for a
    test that verifies the log they are chained as each statement ends."""
    from django.db import connection

    if "database" not in request.fixturenames and connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


@pytest.fixture
def pasted_across_kinds(make_artifact, tmp_path):
    """A record pasted from a skill and a reference page (62% of each): neither decides it
    alone, their coverage across kinds does."""
    import json

    from poimen.models import Record
    from poimen.services import records_ingest
    from tests import renderings
    from tests.texts import reference, skill

    texts = {
        ("skill", "git-commit-message"): skill("git-commit-message"),
        ("reference", "celery-task-retries"): reference("celery-task-retries"),
    }
    for (kind, name), text in texts.items():
        make_artifact(kind=kind, name=name, text=text)
    text = "\n\n".join(
        renderings.word_slice(t, words=int(len(t.split()) * 0.62), seed=5) for t in texts.values()
    )
    path = tmp_path / "pasted.jsonl"
    path.write_text(json.dumps({"id": "pasted", "text": text}) + "\n", encoding="utf-8")
    records_ingest(paths=[path], source="pasted")
    return Record.objects.get(source="pasted")
