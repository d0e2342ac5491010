"""The API through the production server (`manage.py serve`: gunicorn, 2 worker processes) on
a database of its own, used by poimen.agent.client: an artifact registered through one worker is
in force for the next request to every worker."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from poimen.agent.client import Client
from poimen.allocator import CHECKING_ALLOCATOR
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


def _raw(base: str, request: bytes, timeout: float = 10) -> bytes:
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


def test_a_chunked_body_is_read(served):
    base, token = served
    body = b'{"records": [{"id": "c1", "text": "a chunked note"}], "store": false}'
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:20], body[20:]))
    answer = _raw(
        base,
        b"POST /api/v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Authorization: Bearer " + token.encode() + b"\r\n"
        b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        + chunks
        + b"0\r\n\r\n",
    )
    assert answer.startswith(b"HTTP/1.1 200"), answer[:300]
    assert b'"id": "c1"' in answer and b'"status": "evidence"' in answer


def test_slow_clients_do_not_starve_the_server(served):
    """Four connections that send half a request and wait: every other request is still
    answered at once (with sync workers, two of them starved `serve --workers 2`)."""
    base, token = served
    host, port = base.removeprefix("http://").split(":")
    slow = []
    try:
        for _ in range(4):
            connection = socket.create_connection((host, int(port)), timeout=30)
            connection.sendall(b"POST /api/v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            slow.append(connection)
        time.sleep(0.5)
        took = []
        for _ in range(5):
            started = time.monotonic()
            assert Client(base, token, timeout=10, on_error="raise").health().up
            took.append(time.monotonic() - started)
        assert max(took) < 2, took
    finally:
        for connection in slow:
            connection.close()


def test_the_same_record_from_eight_threads_is_stored_once_and_every_answer_given(served):
    """On SQLite too: the writers take turns (a transaction waits for the write lock as it
    begins), no 503, and the run counts every record."""
    import threading

    base, token = served
    answers, failures = [], []

    def post():
        try:
            client = Client(base, token, timeout=30, on_error="raise")
            answers.append(client.check([{"id": "same", "text": "the very same note"}])[0])
        except Exception as error:  # noqa: BLE001 - a failure is what the test looks for
            failures.append(error)

    threads = [threading.Thread(target=post) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert failures == []
    assert sorted(a.stored for a in answers) == ["already"] * 7 + ["new"]
    assert {a.status for a in answers} == {"evidence"}


def test_the_server_runs_with_the_allocator_settings_for_checking_unless_set(served):
    """gunicorn (the process `serve` became) holds CHECKING_ALLOCATOR in its environment, or
    the operator's own values where the environment set them."""
    base, _ = served
    port = base.rsplit(":", 1)[1]
    master = next(
        pid
        for pid in (p for p in os.listdir("/proc") if p.isdigit())
        if f"--bind=127.0.0.1:{port}".encode() in _read(f"/proc/{pid}/cmdline")
    )
    environ = _read(f"/proc/{master}/environ").split(b"\0")
    held = dict(item.split(b"=", 1) for item in environ if b"=" in item)
    for name, value in CHECKING_ALLOCATOR.items():
        assert held[name.encode()].decode() == os.environ.get(name, value)


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError:  # a process gone meanwhile, or not ours to read
        return b""
