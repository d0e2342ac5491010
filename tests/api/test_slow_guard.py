"""A guard that takes the connection and never answers (a server hung, a proxy waiting on it):
the client and the hook wait for one timeout, never one per request they would have made."""

import json
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from poimen.agent.client import Client, PoimenError


@pytest.fixture
def silent_guard():
    """A listening socket that accepts connections and says nothing; how many it accepted."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted = []

    def accept():
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            accepted.append(connection)

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}", accepted
    server.close()
    for connection in accepted:
        connection.close()


def test_a_silent_guard_costs_the_client_one_timeout(silent_guard, caplog):
    url, accepted = silent_guard
    (result,) = Client(url, "t", timeout=0.5).check([{"id": 1, "text": "note"}])
    assert (result.status, result.keep) == ("unchecked", True)
    assert len(accepted) == 1  # the limits were asked once, and nothing sent after it
    assert "unchecked 1 records" in caplog.text and "timed out" in caplog.text
    with pytest.raises(PoimenError, match="timed out"):
        Client(url, "t", timeout=0.5, on_error="raise").check([{"id": 1, "text": "note"}])


def test_the_hook_gives_up_at_once_on_a_silent_guard_and_sends_it_all_next_time(
    silent_guard, tmp_path
):
    url, accepted = silent_guard
    transcript = tmp_path / "t.jsonl"
    line = {
        "type": "user",
        "sessionId": "s1",
        "uuid": "u1",
        "message": {"role": "user", "content": "hello there, a note of mine"},
    }
    transcript.write_text(json.dumps(line) + "\n")
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "POIMEN_URL": url,
        "POIMEN_TOKEN": "t",
        "POIMEN_HOOK_TIMEOUT": "20",
        "POIMEN_HOOK_REQUEST_TIMEOUT": "1",
    }
    event = {"hook_event_name": "Stop", "transcript_path": str(transcript), "session_id": "s1"}
    script = shutil.which("poimen-hook", path=str(Path(sys.executable).parent))
    started = time.monotonic()
    done = subprocess.run(
        [script], input=json.dumps(event), capture_output=True, text=True, env=env, timeout=30
    )
    assert done.returncode == 0 and done.stdout == ""
    assert time.monotonic() - started < 15  # not the whole POIMEN_HOOK_TIMEOUT
    assert len(accepted) == 1
    log = (tmp_path / ".poimen" / "hook.log").read_text()
    assert "poimen is not up" in log and "gave up" not in log
    assert not (tmp_path / ".poimen" / "hook-state").exists()  # nothing marked as sent
