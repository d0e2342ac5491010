"""poimen-hook (issue 21): SubagentStop sends the sub-agent's own transcript, PostCompact is
sent as PreCompact is, and an artifact written while poimen is down is kept and registered
exactly once, in the order written, by the next event that reaches poimen. The hook runs as
the console script, in its own process, against the API served for real."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from poimen.models import Artifact, Record
from tests.conftest import UNRELATED, demo_skill

pytestmark = pytest.mark.django_db(transaction=True)
SESSION = "7c2e1d0f-5a4b-4c3d-8e9f-0a1b2c3d4e5f"
DOWN = "http://127.0.0.1:9"  # nothing listens on the discard port here


@pytest.fixture
def token(api_user, make_token):
    return make_token(api_user, name="hook")


@pytest.fixture
def hook_env(live_server, token, tmp_path):
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "POIMEN_URL": live_server.url,
        "POIMEN_TOKEN": token,
        "POIMEN_HOOK_LOG": str(tmp_path / "hook.log"),
        "POIMEN_HOOK_STATE": str(tmp_path / "state"),
        "POIMEN_HOOK_REQUEST_TIMEOUT": "2",
    }


def hook(event: dict, env: dict) -> int:
    script = shutil.which("poimen-hook", path=str(Path(sys.executable).parent))
    done = subprocess.run(
        [script], input=json.dumps(event), capture_output=True, text=True, env=env, timeout=60
    )
    assert (done.stdout, done.stderr) == ("", "")
    return done.returncode


def line(uuid: str, kind: str, content, *, agent: str | None = None) -> dict:
    """A Claude Code session line; a sub-agent's (agent-*.jsonl) with its agentId."""
    return {
        "parentUuid": None,
        "isSidechain": agent is not None,
        "userType": "external",
        "cwd": "/home/dev/shop",
        "sessionId": SESSION,
        "version": "2.1.3",
        **({"agentId": agent} if agent else {}),
        "type": kind,
        "message": {"role": kind, "content": content},
        "uuid": uuid,
        "timestamp": "2026-12-03T10:00:00.000Z",
    }


def write_jsonl(path: Path, lines: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(one) + "\n" for one in lines))
    return path


def test_subagent_stop_sends_the_sub_agent_s_transcript(hook_env, tmp_path):
    project = tmp_path / "home" / ".claude" / "projects" / "-home-dev-shop"
    main = write_jsonl(project / f"{SESSION}.jsonl", [line("m1", "user", "Review the branch.")])
    agent = write_jsonl(
        project / SESSION / "subagents" / "agent-a1b2c3d4.jsonl",
        [
            line("a1", "user", "Read the release notes skill.", agent="a1b2c3d4"),
            line("a2", "user", [{"type": "text", "text": UNRELATED}], agent="a1b2c3d4"),
        ],
    )
    event = {
        "session_id": SESSION,
        "transcript_path": str(main),
        "hook_event_name": "SubagentStop",
        "stop_hook_active": False,
        "agent_id": "a1b2c3d4",
        "agent_transcript_path": str(agent),
    }

    assert hook(event, hook_env) == 0

    stored = Record.objects.order_by("external_id")
    assert [r.external_id for r in stored] == [f"{SESSION}/a1/0", f"{SESSION}/a2/0"]
    assert {r.metadata["agent"] for r in stored} == {"a1b2c3d4"}
    assert {r.metadata["transcript"] for r in stored} == {str(agent)}
    # the main transcript goes with the main session's own events
    assert hook({**event, "hook_event_name": "Stop"}, hook_env) == 0
    assert Record.objects.filter(external_id=f"{SESSION}/m1/0").exists()


def test_post_compact_sends_the_transcript_as_pre_compact_does(hook_env, tmp_path):
    transcript = write_jsonl(tmp_path / "t.jsonl", [line("u1", "user", "Plan the migration.")])
    event = {"session_id": SESSION, "transcript_path": str(transcript), "trigger": "auto"}

    assert hook({**event, "hook_event_name": "PostCompact"}, hook_env) == 0

    assert Record.objects.count() == 1


def write_skill(project: Path, text: str) -> dict:
    skill = project / ".claude" / "skills" / "release-notes" / "SKILL.md"
    skill.parent.mkdir(parents=True, exist_ok=True)
    skill.write_text(text)
    return {
        "session_id": SESSION,
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(skill), "content": text},
        "tool_response": {"success": True},
    }


def test_a_skill_written_while_poimen_is_down_is_registered_once_by_the_next_event(
    hook_env, tmp_path
):
    project, spool = tmp_path / "shop", tmp_path / "state" / "spool"
    first, second = demo_skill("release-notes"), demo_skill("release-notes") + "\n\nAnd a step."
    down = {**hook_env, "POIMEN_URL": DOWN}

    assert hook(write_skill(project, first), down) == 0
    assert hook(write_skill(project, second), down) == 0

    assert Artifact.objects.count() == 0
    kept = sorted(spool.glob("*.json"))
    assert [json.loads(path.read_text())["text"] for path in kept] == [first, second]
    log = Path(hook_env["POIMEN_HOOK_LOG"]).read_text()
    assert "skill/release-notes and the writes after it are kept" in log

    # any event that reaches poimen sends them, in the order written
    assert hook({"hook_event_name": "Notification", "session_id": SESSION}, hook_env) == 0
    versions = Artifact.objects.filter(kind="skill", name="release-notes").order_by("id")
    assert [artifact.text for artifact in versions] == [first, second]
    assert list(spool.glob("*.json")) == []

    # sent again (a crash before the kept write was removed, two hooks at once): still once
    for path in kept:
        path.write_text(json.dumps({"kind": "skill", "name": "release-notes", "text": second}))
    assert hook({"hook_event_name": "Notification", "session_id": SESSION}, hook_env) == 0
    assert Artifact.objects.filter(name="release-notes").count() == 2
    assert list(spool.glob("*.json")) == []


def test_a_write_is_kept_before_it_is_sent(hook_env, tmp_path):
    """A write poimen registers at once leaves nothing behind; one it does not leaves its
    content as written, even if the file changes before the next event."""
    project, spool = tmp_path / "shop", tmp_path / "state" / "spool"

    assert hook(write_skill(project, demo_skill("release-notes")), hook_env) == 0
    assert Artifact.objects.count() == 1 and list(spool.glob("*.json")) == []

    assert hook(write_skill(project, "v2 " + UNRELATED), {**hook_env, "POIMEN_URL": DOWN}) == 0
    (project / ".claude" / "skills" / "release-notes" / "SKILL.md").write_text("changed since")
    assert hook({"hook_event_name": "Stop", "session_id": SESSION}, hook_env) == 0
    assert Artifact.objects.order_by("-id").first().text == "v2 " + UNRELATED


def test_a_skill_written_before_poimen_is_configured_is_kept_too(hook_env, tmp_path):
    unset = {k: v for k, v in hook_env.items() if k not in ("POIMEN_URL", "POIMEN_TOKEN")}
    assert hook(write_skill(tmp_path / "shop", demo_skill("release-notes")), unset) == 0
    assert len(list((tmp_path / "state" / "spool").glob("*.json"))) == 1

    assert hook({"hook_event_name": "Stop", "session_id": SESSION}, hook_env) == 0
    assert Artifact.objects.get().text == demo_skill("release-notes")
