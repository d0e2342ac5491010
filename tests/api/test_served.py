"""The API through the production server (`manage.py serve`: gunicorn, 2 worker processes) on
a database of its own, used by poimen.client: an artifact registered through one worker is
in force for the next request to every worker."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from poimen.client import Client
from tests.conftest import UNRELATED, demo_skill

ROOT = Path(__file__).resolve().parents[2]


def _manage(env, *args) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def served(tmp_path):
    """(base url, token) of `serve --workers 2` on a SQLite file in a POIMEN_HOME of its own."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **os.environ,
        "DATABASE_URL": "",
        "POIMEN_HOME": str(tmp_path),
        "SECRET_KEY": "api-served-test-" + "s" * 40,
        "ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SUPERUSER_PASSWORD": "served-test-password",
    }
    _manage(env, "migrate", "--verbosity", "0")
    _manage(env, "createsuperuser", "--noinput", "--username", "ops", "--email", "o@example.org")
    token = _manage(env, "create_api_token", "ops", "--name", "served").strip().splitlines()[-1]
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "serve", "--port", str(port), "--workers", "2"],
        env=env,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while not Client(base, token, timeout=2).health().up:
            assert server.poll() is None and time.monotonic() < deadline, "serve did not start"
            time.sleep(0.3)
        yield base, token
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def test_every_worker_checks_against_an_artifact_registered_through_one(served):
    base, token = served
    client = Client(base, token, timeout=10, on_error="raise")
    text = demo_skill("incident-review")
    # Both workers build their index (empty) before the artifact exists.
    for _ in range(6):
        assert client.check([{"id": "x", "text": text}], store=False)[0].status == "evidence"
    assert client.register("skill", "incident-review", text).created
    answers = [client.check([{"id": "x", "text": text}], store=False)[0] for _ in range(10)]
    assert {a.status for a in answers} == {"excluded"}
    copy, genuine = client.check([{"id": "c", "text": text}, {"id": "g", "text": UNRELATED}])
    assert (copy.status, copy.stored, genuine.status) == ("excluded", "new", "evidence")
    assert client.check([{"id": "c", "text": text}])[0].stored == "already"
