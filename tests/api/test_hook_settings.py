"""poimen-hook with a timeout it cannot use (not a number, 0, negative): it keeps its default
and says so, and still exits 0, never without a limit on how long it may take."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("value", ["abc", "0", "-5", "nan"])
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
    assert f"POIMEN_HOOK_TIMEOUT={value!r} is not a positive number of seconds: 20s" in log
    assert f"POIMEN_HOOK_REQUEST_TIMEOUT={value!r} is not a positive number of seconds: 10s" in log
