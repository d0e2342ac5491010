"""The API served for real (pytest-django's live_server: Django's threaded server in this
process), used by poimen.agent.client and by the poimen-hook console script in its own process,
fed real-shaped Claude Code hook events and transcripts on stdin."""

import hashlib
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from poimen.agent.client import Client, PoimenError
from poimen.models import Artifact, Record
from tests.conftest import UNRELATED, demo_skill

pytestmark = pytest.mark.django_db(transaction=True)
SESSION = "5b0f0c6e-7a51-4d3c-9f59-0c1d2e3f4a5b"


@pytest.fixture
def token(api_user, make_token):
    return make_token(api_user, name="live")


def _line(kind, uuid, content, parent=None):
    """A line of a Claude Code session file, as Claude Code writes it."""
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/shop",
        "sessionId": SESSION,
        "version": "2.0.14",
        "gitBranch": "main",
        "type": kind,
        "message": {"role": kind, "content": content},
        "uuid": uuid,
        "timestamp": "2026-12-01T10:00:00.000Z",
    }


def _transcript_lines(skill_text):
    return [
        {"type": "summary", "summary": "Release notes", "leafUuid": "u0"},
        _line("user", "u1", "Write the release notes for 4.2 please."),
        _line(
            "assistant",
            "u2",
            [
                {"type": "text", "text": "I will load the release notes skill first."},
                {
                    "type": "tool_use",
                    "id": "toolu_01",
                    "name": "Read",
                    "input": {"file_path": "/home/dev/.claude/skills/release-notes/SKILL.md"},
                },
            ],
            parent="u1",
        ),
        _line(
            "user",
            "u3",
            [{"type": "tool_result", "tool_use_id": "toolu_01", "content": skill_text}],
            parent="u2",
        ),
    ]


def _hook(event: dict, env: dict, timeout: float = 30) -> subprocess.CompletedProcess:
    script = shutil.which("poimen-hook", path=str(Path(sys.executable).parent))
    return subprocess.run(
        [script], input=json.dumps(event), capture_output=True, text=True, env=env, timeout=timeout
    )


@pytest.fixture
def hook_env(live_server, token, tmp_path):
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "POIMEN_URL": live_server.url,
        "POIMEN_TOKEN": token,
        "POIMEN_HOOK_LOG": str(tmp_path / "hook.log"),
        "POIMEN_HOOK_STATE": str(tmp_path / "state"),
    }


def test_the_client_registers_checks_and_stores(live_server, token):
    client = Client(live_server.url, token, timeout=10, on_error="raise")
    assert client.health().up
    skill = client.register("skill", "release-notes", demo_skill("release-notes"))
    assert (
        skill.created
        and not client.register("skill", "release-notes", demo_skill("release-notes")).created
    )
    copy, genuine = client.check(
        [{"id": "c", "text": demo_skill("release-notes")}, {"id": "g", "text": UNRELATED}]
    )
    assert (copy.status, copy.keep, copy.stored) == ("excluded", False, "new")
    assert copy.matches[0].name == "release-notes" and copy.matches[0].spans
    assert (genuine.status, genuine.keep, genuine.text_to_keep) == ("evidence", True, UNRELATED)
    assert Record.objects.filter(source="api").count() == 2


def test_a_guard_that_is_down_lets_records_through_or_raises_by_choice(caplog):
    down = "http://127.0.0.1:9"  # nothing listens on the discard port here
    (result,) = Client(down, "t", timeout=0.5).check([{"id": 1, "text": "note"}])
    assert (result.status, result.keep) == ("unchecked", True)
    assert "unchecked 1 records" in caplog.text
    assert Client(down, "t", timeout=0.5).register("skill", "x", "y") is None
    with pytest.raises(PoimenError):
        Client(down, "t", timeout=0.5, on_error="raise").check([{"id": 1, "text": "note"}])


def test_a_bad_token_is_unchecked_when_allowed(live_server):
    (result,) = Client(live_server.url, "poimen_wrong").check([{"id": 1, "text": "note"}])
    assert result.status == "unchecked"


def test_the_hook_keeps_a_growing_transcript_checked_and_sends_each_record_once(
    hook_env, tmp_path, make_artifact
):
    skill = make_artifact(name="release-notes")
    transcript = tmp_path / "projects" / "-home-dev-shop" / f"{SESSION}.jsonl"
    transcript.parent.mkdir(parents=True)
    lines = _transcript_lines(skill.text)
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    event = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": "/home/dev/shop",
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    done = _hook(event, hook_env)
    assert done.returncode == 0, done.stderr
    stored = {r.external_id: r for r in Record.objects.filter(session=SESSION)}
    assert len(stored) == 3
    assert stored[f"{SESSION}/u3/0"].status == "excluded"
    assert stored[f"{SESSION}/u1/0"].status == "evidence"

    more = _line("assistant", "u4", "Here are the notes for 4.2: faster checkout.", parent="u3")
    with transcript.open("a") as stream:
        stream.write(json.dumps(more) + "\n")
    assert (
        _hook({**event, "hook_event_name": "SessionEnd", "reason": "clear"}, hook_env).returncode
        == 0
    )
    assert Record.objects.filter(session=SESSION).count() == 4
    assert (
        _hook({**event, "hook_event_name": "PreCompact", "trigger": "auto"}, hook_env).returncode
        == 0
    )
    log = Path(hook_env["POIMEN_HOOK_LOG"]).read_text()
    assert "3 new records sent" in log and "1 new records sent" in log
    assert (
        log.strip().splitlines()[-1].endswith("0 new records sent (none), 0 problems in the file")
    )


def test_the_hook_registers_a_written_skill_as_a_new_version(hook_env, tmp_path):
    project = tmp_path / "shop"
    skill_file = project / ".claude" / "skills" / "deploy" / "SKILL.md"
    skill_file.parent.mkdir(parents=True)
    event = {
        "session_id": SESSION,
        "transcript_path": str(tmp_path / "t.jsonl"),
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_use_id": "toolu_02",
    }
    for version in ("one", "two"):
        text = f"---\nname: shop-deploy\n---\n# Deploy\n\nStep {version}: " + UNRELATED
        skill_file.write_text(text)
        write = {"file_path": str(skill_file), "content": text}
        done = _hook({**event, "tool_input": write, "tool_response": {"success": True}}, hook_env)
        assert done.returncode == 0
    assert list(Artifact.objects.filter(kind="skill").values_list("name", flat=True)) == [
        "shop-deploy",
        "shop-deploy",
    ]
    (project / "CLAUDE.md").write_text("Use pnpm, never npm. " + UNRELATED)
    edit = {"file_path": "CLAUDE.md", "old_string": "npm", "new_string": "pnpm"}
    _hook({**event, "tool_name": "Edit", "tool_input": edit}, hook_env)
    assert Artifact.objects.get(kind="memory").name == "CLAUDE.md"
    (project / "notes.md").write_text("not an artifact")
    _hook({**event, "tool_input": {"file_path": str(project / "notes.md")}}, hook_env)
    assert Artifact.objects.count() == 3


def test_the_hook_exits_0_in_time_whatever_happens(tmp_path):
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "POIMEN_URL": "http://127.0.0.1:9",
        "POIMEN_TOKEN": "t",
        "POIMEN_HOOK_TIMEOUT": "3",
    }
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps(_line("user", "u1", "hello there")) + "\n")
    started = time.monotonic()
    for stdin_event in (
        {"hook_event_name": "Stop", "transcript_path": str(transcript)},
        "{not json",
    ):
        script = shutil.which("poimen-hook", path=str(Path(sys.executable).parent))
        body = stdin_event if isinstance(stdin_event, str) else json.dumps(stdin_event)
        done = subprocess.run([script], input=body, capture_output=True, text=True, env=env)
        assert done.returncode == 0 and done.stdout == ""
    assert time.monotonic() - started < 10
    log = (tmp_path / ".poimen" / "hook.log").read_text()
    assert "poimen is not up" in log and "hook failed" in log


def _stop_event(transcript):
    return {"session_id": SESSION, "transcript_path": str(transcript), "hook_event_name": "Stop"}


@pytest.fixture
def transcript(tmp_path, make_artifact):
    skill = make_artifact(name="release-notes")
    path = tmp_path / "projects" / "-home-dev-shop" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    lines = _transcript_lines(skill.text)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.mark.parametrize("label", [None, "laptop"])
def test_a_transcript_the_hook_sent_adds_nothing_when_ingested_later(hook_env, transcript, label):
    from django.core.management import call_command

    assert _hook(_stop_event(transcript), hook_env).returncode == 0
    assert Record.objects.count() == 3
    call_command("ingest", str(transcript), *(["--source", label] if label else []))
    assert Record.objects.count() == 3
    assert set(Record.objects.values_list("identity", flat=True)) == {
        f"claude-code:{SESSION}/{uuid}/0" for uuid in ("u1", "u2", "u3")
    }


def test_a_transcript_ingested_first_adds_nothing_when_the_hook_sends_it(hook_env, transcript):
    from django.core.management import call_command

    call_command("ingest", str(transcript), "--source", "laptop")
    assert Record.objects.count() == 3
    assert _hook(_stop_event(transcript), hook_env).returncode == 0
    assert Record.objects.count() == 3
    log = Path(hook_env["POIMEN_HOOK_LOG"]).read_text()
    assert "3 new records sent (evidence 2, excluded 1)" in log  # answered, stored once


def _last_logged(hook_env) -> str:
    return Path(hook_env["POIMEN_HOOK_LOG"]).read_text().strip().splitlines()[-1]


def test_the_hook_remembers_a_record_by_its_identity_under_another_label(hook_env, tmp_path):
    path = tmp_path / "records.jsonl"

    def write(source, record_id):
        lines = [
            {
                "id": record_id,
                "source": source,
                "identity": f"notes:{SESSION}/n1",
                "text": UNRELATED,
            },
            {"id": "plain", "source": source, "text": "A note without an identity of its own."},
        ]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))

    write("laptop", "n1")
    assert _hook(_stop_event(path), hook_env).returncode == 0
    assert "2 new records sent" in _last_logged(hook_env)
    write("desktop", "n1-again")  # the same record under another label and id
    assert _hook(_stop_event(path), hook_env).returncode == 0
    # the one without an identity is another record under another label
    assert "1 new records sent" in _last_logged(hook_env)
    assert Record.objects.count() == 3


def test_the_hook_reads_a_state_file_an_older_hook_wrote_by_source_and_id(hook_env, transcript):
    assert _hook(_stop_event(transcript), hook_env).returncode == 0
    (state,) = Path(hook_env["POIMEN_HOOK_STATE"]).iterdir()
    # As the hooks before state files had a version wrote them: each record by source and id.
    by_source_and_id = [
        hashlib.sha256(f"claude-code\0{SESSION}/{uuid}/0".encode()).hexdigest()[:24]
        for uuid in ("u1", "u2", "u3")
    ]
    state.write_text(json.dumps({"sent": by_source_and_id}))
    more = _line("assistant", "u4", "Here are the notes for 4.2: faster checkout.", parent="u3")
    with transcript.open("a") as stream:
        stream.write(json.dumps(more) + "\n")
    assert _hook(_stop_event(transcript), hook_env).returncode == 0
    assert "1 new records sent" in _last_logged(hook_env)
    written = json.loads(state.read_text())
    assert written["version"] == 2 and len(written["sent"]) == 4
    assert not set(written["sent"]) & set(by_source_and_id)  # remembered by identity now
    assert _hook(_stop_event(transcript), hook_env).returncode == 0
    assert "0 new records sent" in _last_logged(hook_env)
