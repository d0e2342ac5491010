"""The adapters run in the memory system's process: they import nothing of Django."""

import subprocess
import sys

import pytest

ADAPTERS = [
    "poimen.adapters.mem0",
    "poimen.adapters.langgraph",
    "poimen.adapters.mcp",
    "poimen.adapters.graphiti",
]
LIBRARIES = {
    "poimen.adapters.mem0": "mem0",
    "poimen.adapters.langgraph": "langgraph",
    "poimen.adapters.graphiti": "graphiti_core",
}


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_an_adapter_imports_nothing_of_django(adapter):
    pytest.importorskip(LIBRARIES.get(adapter, "mcp"))
    code = (
        f"import {adapter}, sys; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'ninja')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"MEM0_TELEMETRY": "false", "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
