"""The two roles of docs/deploy.md on PostgreSQL: the server's role may insert and read events
and nothing more (no UPDATE, no DISABLE TRIGGER), runs the commands, and `check --deploy` is
quiet for it; run as the table's owner (or a superuser), `check --deploy` warns by name."""

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
SERVER_ROLE = "poimen_test_server"
# docs/deploy.md, section 2, after migrate
GRANTS = f"""
GRANT USAGE ON SCHEMA public TO {SERVER_ROLE};
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {SERVER_ROLE};
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {SERVER_ROLE};
REVOKE UPDATE, DELETE, TRUNCATE ON poimen_event FROM {SERVER_ROLE};
"""
PRODUCTION = {
    "SECRET_KEY": "a-long-random-production-key-" + "q7Z" * 15,
    "ALLOWED_HOSTS": "poimen.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://poimen.example.org",
    "POIMEN_HTTPS": "1",
}

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="roles and triggers are PostgreSQL's",
    ),
]


def url(user: str) -> str:
    db = connection.settings_dict
    return f"postgres://{user}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def manage(*args, user: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **PRODUCTION, "DATABASE_URL": url(user)}
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def server_role():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [SERVER_ROLE])
        if cursor.fetchone() is None:
            cursor.execute(f"CREATE ROLE {SERVER_ROLE} LOGIN")
        cursor.execute(GRANTS)
    return SERVER_ROLE


def test_the_server_role_only_inserts_and_reads_events(server_role):
    verified = manage("verify_audit", user=server_role)
    assert verified.returncode == 0, verified.stderr
    quiet = manage("check", "--deploy", "--fail-level", "WARNING", user=server_role)
    assert "poimen.W001" not in quiet.stderr
    with psycopg.connect(url(server_role), autocommit=True) as db:
        for forgery in (
            "UPDATE poimen_event SET kind = 'forged'",
            "DELETE FROM poimen_event",
            "TRUNCATE poimen_event",
            "ALTER TABLE poimen_event DISABLE TRIGGER USER",
            "DROP TRIGGER poimen_event_append_only ON poimen_event",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                db.execute(forgery)


def test_check_deploy_warns_when_the_servers_role_owns_the_events():
    loud = manage("check", "--deploy", user=connection.settings_dict["USER"])
    assert "poimen.W001" in loud.stderr
    assert "owns the event table" in loud.stderr and "docs/deploy.md" in loud.stderr
