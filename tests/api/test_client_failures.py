"""The client applies on_error to every failure, within one deadline: an answer that is not the
API's (`{}`, a list, too few results), a server that does not speak HTTP, one that trickles
its answer a byte at a time; health() never raises. Real sockets, a server of a few lines."""

import json
import socket
import threading
import time

import pytest

from poimen.agent.client import UNCHECKED, Client, PoimenError

HEALTH = {
    "status": "ok",
    "database": "ok",
    "index_version": "v1",
    "artifacts": 0,
    "limits": {"records": 100, "bytes": 1048576},
}


def http(body, status="200 OK") -> bytes:
    payload = body if isinstance(body, bytes) else json.dumps(body).encode()
    head = f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
    return (head + f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n").encode() + (
        payload
    )


@pytest.fixture
def guard():
    """guard(answer) -> the URL of a server that answers each request with answer(path):
    bytes to send, or a callable given the connection."""
    servers = []

    def start(answer):
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        servers.append(server)

        def one(connection):
            with connection:
                request = b""
                while b"\r\n\r\n" not in request:
                    chunk = connection.recv(65536)
                    if not chunk:
                        return
                    request += chunk
                path = request.split(b" ", 2)[1].decode()
                reply = answer(path)
                try:
                    if callable(reply):
                        reply(connection)
                    else:
                        connection.sendall(reply)
                except OSError:
                    pass

        def accept():
            while True:
                try:
                    connection, _ = server.accept()
                except OSError:
                    return
                threading.Thread(target=one, args=(connection,), daemon=True).start()

        threading.Thread(target=accept, daemon=True).start()
        return f"http://127.0.0.1:{server.getsockname()[1]}"

    yield start
    for server in servers:
        server.close()


def health_then(check_answer):
    return lambda path: http(HEALTH) if path.endswith("/health") else check_answer


RECORDS = [{"id": "a", "text": "one"}, {"id": "b", "text": "two"}]


@pytest.mark.parametrize(
    "answer",
    [
        http({}),
        http([1, 2]),
        http({"results": [{"id": "a", "status": "evidence"}]}),  # one result for two records
        http({"results": "no"}),
        http({"results": [{"matches": [{"kind": "skill"}]}, {}]}),
        http(b"<html>not json</html>"),
        b"SSH-2.0-OpenSSH_9.2\r\n\r\n",  # not HTTP
        b"",  # the connection closed without a word
    ],
    ids=["empty", "list", "too-few", "results-not-list", "match-missing", "html", "ssh", "eof"],
)
def test_an_answer_that_is_not_the_apis_is_unchecked_or_raised(guard, answer, caplog):
    url = guard(health_then(answer))
    results = Client(url, "t", timeout=5).check(RECORDS)
    assert [(r.id, r.status, r.text) for r in results] == [
        ("a", UNCHECKED, "one"),
        ("b", UNCHECKED, "two"),
    ]
    assert "poimen unchecked 2 records" in caplog.text
    with pytest.raises(PoimenError):
        Client(url, "t", timeout=5, on_error="raise").check(RECORDS)


def trickle(connection):
    """A byte every quarter second: no socket timeout of 2 s ever trips."""
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
    for _ in range(200):
        connection.sendall(b" ")
        time.sleep(0.25)


@pytest.mark.parametrize("where", ["health", "check"])
def test_a_trickling_server_costs_one_deadline(guard, where):
    url = guard((lambda path: trickle) if where == "health" else health_then(trickle))
    started = time.monotonic()
    results = Client(url, "t", timeout=2).check(RECORDS)
    assert [r.status for r in results] == [UNCHECKED, UNCHECKED]
    assert time.monotonic() - started < 3
    started = time.monotonic()
    with pytest.raises(PoimenError, match="timed out, no answer within 2"):
        Client(url, "t", timeout=2, on_error="raise").check(RECORDS)
    assert time.monotonic() - started < 3


@pytest.mark.parametrize(
    "answer", [http({}), http({"limits": "x"}), b"garbage\r\n\r\n", trickle], ids=str
)
def test_health_never_raises_and_register_allows(guard, answer):
    url = guard(lambda path: answer)
    started = time.monotonic()
    health = Client(url, "t", timeout=2).health()
    assert not health.up and health.limits == {"records": 100, "bytes": 1048576}
    assert Client(url, "t", timeout=2).register("skill", "a", "text") is None
    assert time.monotonic() - started < 5
