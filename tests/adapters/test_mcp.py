"""`poimen mcp` in its own process, driven over stdio by the real MCP SDK's client, against a
live poimen: its tools check (keep or not, and what), register, and register an injected
block that a restatement then matches."""

import asyncio
import shutil
import sys
from pathlib import Path

import pytest

from poimen.models import Artifact
from tests.conftest import UNRELATED, demo_skill

mcp = pytest.importorskip("mcp", reason="pip install -e '.[mcp]'")

from mcp import Client, StdioServerParameters  # noqa: E402

pytestmark = pytest.mark.django_db(transaction=True)


def _server(live_server, token, **env):
    command = shutil.which("poimen", path=str(Path(sys.executable).parent))
    return StdioServerParameters(
        command=command,
        args=["mcp"],
        env={"POIMEN_URL": live_server.url, "POIMEN_TOKEN": token, **env},
    )


def _session(parameters, calls):
    """Each (tool, arguments) of `calls` called in one session; their structured answers."""

    async def run():
        async with Client(parameters, read_timeout_seconds=60) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            answers = []
            for tool, arguments in calls:
                result = await client.call_tool(tool, arguments)
                assert not result.is_error, result
                answers.append(result.structured_content)
            return tools, answers

    return asyncio.run(run())


def test_the_tools_check_register_and_catch_an_injected_block(live_server, guard_token):
    skill = demo_skill("release-notes")
    block = "- " + UNRELATED.replace(". ", ".\n- ")
    tools, answers = _session(
        _server(live_server, guard_token),
        [
            ("register", {"kind": "skill", "name": "release-notes", "text": skill}),
            (
                "check",
                {
                    "records": [
                        {"id": "t1", "text": f"Here you are:\n\n{skill}", "role": "assistant"},
                        {"id": "t2", "text": UNRELATED, "role": "user"},
                    ]
                },
            ),
            ("register_injected", {"block": block}),
            ("check", {"records": [{"id": "t3", "text": "You said:\n" + block}], "store": False}),
        ],
    )
    assert tools == {"check", "register", "register_injected"}
    registered, checked, injected, restated = answers
    assert registered["registered"] and registered["created"]
    first, second = checked["result"]
    assert (first["status"], first["keep"], first["matched"]) == (
        "excluded",
        False,
        ["skill/release-notes"],
    )
    assert (second["status"], second["keep"], second["text_to_keep"]) == (
        "evidence",
        True,
        UNRELATED,
    )
    assert injected["registered"] and injected["kind"] == "memory"
    assert Artifact.objects.filter(kind="memory", name=injected["name"]).exists()
    (again,) = restated["result"]
    assert again["status"] in ("excluded", "redacted") and again["matched"] == [
        f"memory/{injected['name']}"
    ]


def test_a_guard_that_is_down_lets_records_through_unchecked(live_server, guard_token):
    parameters = _server(
        live_server, guard_token, POIMEN_URL="http://127.0.0.1:9", POIMEN_TIMEOUT="2"
    )
    _, (checked,) = _session(parameters, [("check", {"records": [{"id": "t", "text": UNRELATED}]})])
    (result,) = checked["result"]
    assert (result["status"], result["keep"]) == ("unchecked", True)


def test_a_guard_that_is_down_fails_closed_with_raise(live_server, guard_token):
    parameters = _server(
        live_server,
        guard_token,
        POIMEN_URL="http://127.0.0.1:9",
        POIMEN_TIMEOUT="2",
        POIMEN_ON_ERROR="raise",
    )

    async def run():
        async with Client(parameters, read_timeout_seconds=60) as client:
            return await client.call_tool("check", {"records": [{"id": "t", "text": UNRELATED}]})

    result = asyncio.run(run())
    # The agent gets an error, not a record to keep: its memory server stores nothing.
    assert result.is_error
    (said,) = result.content
    assert "poimen could not check" in said.text and "store none of these" in said.text
