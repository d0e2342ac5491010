"""Production settings from the environment: `check --deploy`, the refused development key,
and the development server serving static files with DEBUG off. Settings are read once, at
start, so each case is a real `manage.py` process with its own environment."""

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {
    "SECRET_KEY": "a-long-random-production-key-" + "q7Z" * 15,
    "ALLOWED_HOSTS": "poimen.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://poimen.example.org",
    "POIMEN_HTTPS": "1",
}
UNSET = ("SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "POIMEN_HTTPS")
# Set by the browser tests for their own process; a deployment never has it.
UNSET += ("DJANGO_ALLOW_ASYNC_UNSAFE",)


def manage(*args, home: Path, timeout=120, **env) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in UNSET and k != "DATABASE_URL"}
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        cwd=home,
        env={**base, "POIMEN_HOME": str(home), **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_check_deploy_is_clean_with_the_production_variables(tmp_path):
    result = manage("check", "--deploy", "--fail-level", "WARNING", home=tmp_path, **PRODUCTION)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_names_what_the_development_defaults_leave_open(tmp_path):
    result = manage("check", "--deploy", "--fail-level", "WARNING", home=tmp_path)
    assert result.returncode != 0
    for warning in ("W004", "W008", "W009", "W012", "W016"):
        assert f"security.{warning}" in result.stderr


def test_serve_refuses_the_development_secret_key(tmp_path):
    result = manage("serve", "--port", "1", home=tmp_path)
    assert result.returncode == 2
    assert "SECRET_KEY is the development key" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_refuses_a_database_not_migrated(tmp_path):
    result = manage("serve", "--port", "1", home=tmp_path, SECRET_KEY=PRODUCTION["SECRET_KEY"])
    assert result.returncode == 2
    assert "database not migrated" in result.stderr
    assert "run `python manage.py migrate`" in result.stderr


def test_a_command_on_a_fresh_database_names_migrate(tmp_path):
    result = manage("export_records", "--output", str(tmp_path / "out.jsonl"), home=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("export_records failed: no such table")
    assert "database not migrated" in result.stderr
    assert "run `python manage.py migrate`" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_migration_that_fails_is_named_with_its_error(tmp_path):
    """Not "database not migrated: run migrate", which is what was just run."""
    import sqlite3

    with sqlite3.connect(tmp_path / "db.sqlite3") as database:  # in the way of 0011
        database.execute("CREATE TABLE poimen_apitoken (id integer)")
    result = manage("migrate", home=tmp_path)
    assert result.returncode == 2
    assert "migrate failed applying poimen.0011_api_tokens_and_permissions" in result.stderr
    assert "table" in result.stderr and "already exists" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_command_on_an_unreachable_database_says_so(tmp_path):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgres://postgres@127.0.0.1:{port}/nothing_here"
    result = manage("verify_derived", home=tmp_path, DATABASE_URL=url)
    assert result.returncode == 2
    assert "database unreachable" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_home_that_does_not_exist_is_named(tmp_path):
    home = tmp_path / "not-made-yet"
    result = manage("migrate", home=tmp_path, POIMEN_HOME=str(home))
    assert result.returncode == 2
    assert f"the SQLite database's folder {home} does not exist" in result.stderr
    assert "Traceback" not in result.stderr


def test_runserver_serves_static_files_with_debug_off(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = {k: v for k, v in os.environ.items() if k not in UNSET and k != "DATABASE_URL"}
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=tmp_path,
        env={**base, "POIMEN_HOME": str(tmp_path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=5) as page:
                    html = page.read().decode()
                break
            except (urllib.error.URLError, ConnectionError):
                assert server.poll() is None and time.monotonic() < deadline
                time.sleep(0.3)
        css = html.split('rel="stylesheet" href="', 1)[1].split('"', 1)[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{css}", timeout=5) as response:
            assert response.status == 200
            assert b"--" in response.read()  # the stylesheet's custom properties
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_settings_the_environment_gets_wrong_are_named_a_line_each(tmp_path):
    result = manage(
        "check",
        home=tmp_path,
        POIMEN_SERVER_WORKERS="five",
        POIMEN_HTTPS="ture",
        DATABASE_URL="mysql://db/poimen",
        POIMEN_REPORT_FLOOR="nan",
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "poimen: setting: POIMEN_HTTPS='ture' is neither on (1, true, yes, on) nor off",
        "poimen: setting: DATABASE_URL: unsupported scheme 'mysql'; use postgres://… or sqlite:///…",
        "poimen: setting: POIMEN_REPORT_FLOOR='nan' is not a number",
        "poimen: setting: POIMEN_SERVER_WORKERS='five' is not a whole number",
    ]
