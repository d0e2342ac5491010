"""poimen-hook with a timeout it cannot use (not a number, 0, negative): it keeps its default
and says so, and still exits 0, never without a limit on how long it may take."""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest


@pytest.mark.parametrize("value", ["abc", "0", "-5", "nan", "1e-9", "1e9"])
def test_a_timeout_that_is_no_number_of_seconds_falls_back_and_is_logged(tmp_path, value):
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "POIMEN_URL": "http://127.0.0.1:9",
        "POIMEN_TOKEN": "t",
        "POIMEN_HOOK_TIMEOUT": value,
        "POIMEN_HOOK_REQUEST_TIMEOUT": value,
    }
    script = shutil.which("poimen-hook", path=str(Path(sys.executable).parent))
    event = {"hook_event_name": "Notification"}
    done = subprocess.run(
        [script], input=json.dumps(event), capture_output=True, text=True, env=env, timeout=30
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    log = (tmp_path / ".poimen" / "hook.log").read_text()
    said = "is not a number of seconds from 0.1 to 3600"
    assert f"POIMEN_HOOK_TIMEOUT={value!r} {said}: 20s instead" in log
    assert f"POIMEN_HOOK_REQUEST_TIMEOUT={value!r} {said}: 10s instead" in log


def run_hook(tmp_path, event, **env):
    base = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "POIMEN_URL": "http://127.0.0.1:9",
        "POIMEN_TOKEN": "t",
        "POIMEN_HOOK_TIMEOUT": "5",
    }
    script = shutil.which("poimen-hook", path=str(Path(sys.executable).parent))
    started = time.monotonic()
    data = event if isinstance(event, bytes) else json.dumps(event).encode()
    done = subprocess.run(
        [script], input=data, capture_output=True, env={**base, **env}, timeout=60
    )
    return done, time.monotonic() - started, (tmp_path / ".poimen" / "hook.log").read_text()


def written(path) -> dict:
    return {
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(path)},
    }


def test_a_written_file_that_is_no_artifact_is_never_read(tmp_path):
    done, took, log = run_hook(tmp_path, written("/dev/zero"))
    assert (done.returncode, done.stderr) == (0, b"") and took < 5
    assert "hook failed" not in log


@pytest.mark.parametrize("where", ["skills/big/SKILL.md", "CLAUDE.md"])
def test_an_artifact_over_the_size_cap_is_not_read_whole(tmp_path, where):
    path = tmp_path / "project" / where
    path.parent.mkdir(parents=True)
    with open(path, "wb") as stream:
        stream.truncate(2 * 1024**3)  # 2 GB, sparse: the hook would take seconds and 2 GB
    done, took, log = run_hook(tmp_path, written(path))
    assert (done.returncode, done.stderr) == (0, b"") and took < 5
    assert f"{path}: over 1048576 bytes, no artifact: not registered" in log


def test_an_agent_file_that_is_a_device_is_not_opened(tmp_path):
    link = tmp_path / "project" / "CLAUDE.md"
    link.parent.mkdir()
    link.symlink_to("/dev/zero")
    done, took, log = run_hook(tmp_path, written(link))
    assert (done.returncode, done.stderr) == (0, b"") and took < 5
    assert "not a regular file" in log


@pytest.mark.parametrize("event", [b"[1, 2]", b"not json", b"{" * 100_000])
def test_an_event_that_is_no_object_is_logged_and_exits_0(tmp_path, event):
    done, took, log = run_hook(tmp_path, event)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
