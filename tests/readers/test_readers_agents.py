"""Gemini CLI sessions (both forms), Cline task folders and Continue sessions (issue 21), read
into exactly the records an independent count of the file finds, with their provenance; a task
folder's companions are skipped, never an error.

The fixtures follow each tool's own writer: Gemini CLI's chatRecordingService.ts (the JSON
form, and the JSONL form that appends a message again when its tool calls finish, `$set`s the
metadata and `$rewindTo`s a message), Cline's task folder (api_conversation_history.json,
ui_messages.json, task_metadata.json) and Continue's session files.
"""

import json
from collections import Counter

from tests.factories import demo_skill

SKILL = demo_skill("postgres-migrations")
GEMINI_JSON = "session-2026-11-30T12-00-5f0b9a52.json"
GEMINI_JSONL = "session-2026-11-30T12-00-e2d7c1b0.jsonl"
CLINE_TASK = "1764505200000"


def by_what(skipped) -> dict:
    return dict(Counter(s.what for s in skipped))


def gemini_expected(messages: list) -> list[tuple[str, str | None]]:
    """An independent count of a Gemini CLI session's records: (role, tool) for the text of
    each user and gemini message, then each tool call that has a result."""
    expected = []
    for message in messages:
        if message["type"] not in ("user", "gemini"):
            continue
        content = message["content"]
        text = content if isinstance(content, str) else "".join(p["text"] for p in content)
        if text.strip():
            expected.append(("user" if message["type"] == "user" else "assistant", None))
        for call in message.get("toolCalls", []):
            if call.get("result"):
                expected.append(("tool", call["name"]))
    return expected


def test_a_gemini_cli_json_session_reads_every_message_and_tool_result(read, transcripts):
    path = transcripts / "gemini-cli" / GEMINI_JSON
    session = json.loads(path.read_text())

    records, problems, skipped = read(path)

    assert problems == []
    assert [(r.role, r.metadata.get("tool")) for r in records] == gemini_expected(
        session["messages"]
    )
    assert {r.session for r in records} == {session["sessionId"]}
    assert {r.source for r in records} == {"gemini-cli"}
    loaded = records[1]
    assert loaded.text == SKILL and loaded.metadata["tool"] == "read_file"
    key = f"{session['sessionId']}/b1c2d3e4-0002/read_file-1764504005123-8f2a1c"
    assert (loaded.external_id, loaded.identity) == (key, f"gemini-cli:{key}")
    assert loaded.metadata["timestamp"] == "2026-11-30T12:00:04.000Z"
    assert loaded.metadata["model"] == "gemini-2.5-pro"
    # turn counts conversation turns: the second user message starts the second
    assert [r.metadata["turn"] for r in records] == [0, 0, 0, 0, 1, 1]
    assert by_what(skipped) == {"thought": 1, "tool call": 2, "info message": 1}


def test_a_gemini_cli_jsonl_session_is_read_as_gemini_cli_replays_it(read, transcripts):
    """A message appended again (its tool call finished) is read once, as it last stood; the
    messages a rewind dropped are skipped; `$set` lines update the metadata."""
    path = transcripts / "gemini-cli" / GEMINI_JSONL
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    final: dict = {}
    for line in lines:  # the replay, independently: last version by id, rewind drops the rest
        if "$rewindTo" in line:
            ids = list(final)
            final = {i: final[i] for i in ids[: ids.index(line["$rewindTo"])]}
        elif "id" in line:
            final[line["id"]] = line

    records, problems, skipped = read(path)

    assert problems == []
    assert [(r.role, r.metadata.get("tool")) for r in records] == gemini_expected(
        list(final.values())
    )
    assert len({r.external_id for r in records}) == len(records)
    assert records[1].text == SKILL  # the version with the result, not the one before it
    assert records[1].position == 4  # the line of that version
    assert {r.session for r in records} == {lines[0]["sessionId"]}
    assert by_what(skipped) == {
        "thought": 1,
        "tool call": 1,
        "$set line": 2,
        "rewound message": 2,
        "$rewindTo line": 1,
    }


def test_a_gemini_cli_skill_read_is_one_record_in_both_forms(read, transcripts):
    records, _, _ = read(transcripts / "gemini-cli")
    reads = [r for r in records if r.metadata.get("tool") == "read_file"]
    assert [r.text for r in reads] == [SKILL, SKILL]
    assert [r.metadata["format"] for r in reads] == ["gemini-cli", "gemini-cli"]


def test_a_cline_task_folder_reads_with_its_companions_skipped(read, transcripts):
    folder = transcripts / "cline" / CLINE_TASK
    history = json.loads((folder / "api_conversation_history.json").read_text())

    records, problems, skipped = read(folder)

    assert problems == []
    # an independent count: a record for each message's text blocks, one for each tool result
    expected = sum(
        any(b["type"] == "text" and b["text"].strip() for b in m["content"]) for m in history
    ) + sum(b["type"] == "tool_result" for m in history for b in m["content"])
    assert len(records) == expected == 7
    assert {r.session for r in records} == {CLINE_TASK}  # the task id, not the file's name
    assert {r.source for r in records} == {"messages"}  # known by content: Anthropic's shape
    assert SKILL in records[2].text and records[2].role == "user"
    assert records[5].role == "tool" and records[5].metadata["tool"] == "write_to_file"
    assert by_what(skipped) == {
        "Cline task metadata (task_metadata.json)": 1,
        "Cline UI log (ui_messages.json)": 1,
        "tool_use block": 1,
    }


def test_a_continue_session_reads_its_context_items_as_what_the_model_loaded(read, transcripts):
    path = transcripts / "continue" / "8a1d2c3b-4e5f-4a6b-9c7d-0e1f2a3b4c5d.json"

    records, problems, skipped = read(path)

    assert problems == []
    assert [(r.role, r.metadata.get("tool")) for r in records] == [
        ("context", None),
        ("user", None),
        ("assistant", None),
        ("tool", "builtin_create_new_file"),
        ("assistant", None),
    ]
    assert SKILL in records[0].text
    assert {r.session for r in records} == {"8a1d2c3b-4e5f-4a6b-9c7d-0e1f2a3b4c5d"}
    assert {r.source for r in records} == {"continue"}
    assert by_what(skipped) == {"tool_calls entry": 1}


def test_a_gemini_cli_line_of_no_known_kind_is_a_problem_the_rest_is_read(read, tmp_path):
    path = tmp_path / "session.jsonl"
    lines = [
        {"sessionId": "s", "projectHash": "p", "startTime": "", "lastUpdated": ""},
        {"id": "m1", "type": "user", "content": "hello there"},
        {"what": "is this"},
        {"id": "m2", "type": "gemini", "content": "hi"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + "not json\n")

    records, problems, _ = read(path)

    assert [r.text for r in records] == ["hello there", "hi"]
    assert [str(p) for p in problems] == [
        f"{path}:3: not a Gemini CLI session line (keys: what)",
        f"{path}:5: not JSON (a comment or header line?) among JSON lines",
    ]


def test_codex_0_60_shell_output_keeps_its_exit_code_line_and_says_it(read, tmp_path):
    """Codex 0.60 and later hand a shell call's output to the model as text under a header."""
    output = f"Exit code: 0\nWall time: 0.4 seconds\nOutput:\n{SKILL}"
    failed = "Exit code: 2\nWall time: 1.25 seconds\nOutput:\nrg: SKILL.md: No such file"

    def item(payload: dict) -> dict:
        return {
            "timestamp": "2026-12-03T10:00:00.000Z",
            "type": "response_item",
            "payload": payload,
        }

    lines = [
        {"timestamp": "t0", "type": "session_meta", "payload": {"id": "s-060"}},
        item({"type": "function_call", "name": "shell_command", "call_id": "c1"}),
        item({"type": "function_call_output", "call_id": "c1", "output": output}),
        item({"type": "function_call_output", "call_id": "c1", "output": failed}),
    ]
    path = tmp_path / "rollout-2026-12-03T10-00-00-s-060.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))

    records, problems, _ = read(path)

    assert problems == []
    assert [r.text for r in records] == [output, failed]
    assert [(r.metadata["exit_code"], r.metadata["duration_seconds"]) for r in records] == [
        (0, 0.4),
        (2, 1.25),
    ]


def test_a_skip_in_a_json_document_says_where_it_is(read, transcripts):
    """--verbose lists skips by line; a JSON document's have no line, so they name the message
    (or the ChatGPT conversation and node) instead."""
    path = transcripts / "gemini-cli" / GEMINI_JSON
    _, _, skipped = read(path)
    assert [str(s) for s in skipped][:2] == [
        f"{path}: message 1: skipped thought",
        f"{path}: message 1: skipped tool call",
    ]
    _, _, skipped = read(transcripts / "chatgpt" / "conversations.json")
    assert all(": conversation " in str(s) and ", node " in str(s) for s in skipped)
    _, _, skipped = read(transcripts / "messages" / "anthropic-request.json")
    assert skipped and all(": message " in str(s) for s in skipped)


def test_a_gemini_cli_sub_agent_file_names_the_agent(read, tmp_path):
    lines = [
        {"sessionId": "sub-7", "projectHash": "p", "kind": "subagent", "directories": ["/w"]},
        {"id": "m1", "type": "user", "content": "Find the migration skill."},
    ]
    path = tmp_path / "parent-session" / "sub-7.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))

    (record,), problems, _ = read(path)

    assert problems == [] and record.metadata["agent"] == "sub-7"
