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
    behind a <script> line, a near miss (half a skill inside a longer turn), unrelated text.
    Returns a dict of the records by role."""
    import json

    from poimen.models import Record
    from poimen.services import records_ingest

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
    from poimen.index_version import live_index

    live_index.index = live_index.version = None
    yield
