"""Each format of tests/texts/transcripts/ read into the records a reviewer would recognise
from the tool's own display, with their provenance; what is not a record is counted."""

import json
import shutil
from collections import Counter

from tests.factories import demo_skill

SKILL = demo_skill("postgres-migrations")


def by_what(skipped) -> dict:
    return dict(Counter(s.what for s in skipped))


def test_claude_code_session_tool_results_carry_the_tool_and_the_skill_load_is_read(
    read, transcripts
):
    path = transcripts / "claude-code" / "3c1e9f4a-7b2d-4e8f-a6c5-0d9b8e7f6a51.jsonl"
    records, problems, skipped = read(path)
    assert problems == []
    assert [(r.role, r.metadata.get("tool")) for r in records] == [
        ("user", None),
        ("tool", "Skill"),
        ("user", None),  # the skill Claude Code injected (isMeta)
        ("assistant", None),
        ("tool", "Read"),
        ("tool", "Bash"),
        ("tool", "Task"),
        ("user", None),  # the /compact summary
        ("user", None),
        ("assistant", None),
    ]
    loaded, read_back = records[2], records[4]
    assert SKILL in loaded.text and loaded.metadata["meta"] is True
    assert read_back.text.splitlines()[1] == "     2→name: postgres-migrations"
    assert read_back.metadata | {"session": None} == {
        "format": "claude-code",
        "session": None,
        "role": "tool",
        "turn": 6,
        "uuid": "b7",
        "block": 0,
        "block_type": "tool_result",
        "tool": "Read",
        "tool_use_id": "toolu_02Read",
        "timestamp": "2026-11-30T10:02:19.990Z",
    }
    assert records[7].metadata["restatement"] == "compact-summary"
    assert all(r.source == "claude-code" for r in records)
    assert records[0].identity == "claude-code:3c1e9f4a-7b2d-4e8f-a6c5-0d9b8e7f6a51/b1/0"
    assert by_what(skipped) == {
        "file-history-snapshot line": 1,
        "thinking block": 1,
        "tool_use block": 4,
        "system line": 1,
        "image block": 1,
        "queue-operation line": 1,
        "progress line": 1,
        "summary line": 1,
    }


def test_claude_code_sub_agent_file_keeps_the_agent(read, transcripts):
    records, problems, skipped = read(transcripts / "claude-code" / "agent-a7f3c2e1.jsonl")
    assert problems == []
    assert [(r.role, r.metadata.get("tool"), r.metadata["agent"]) for r in records] == [
        ("user", None, "a7f3c2e1"),
        ("tool", "Grep", "a7f3c2e1"),
        ("assistant", None, "a7f3c2e1"),
    ]
    assert all(r.metadata["sidechain"] is True for r in records)
    assert by_what(skipped) == {"tool_use block": 1}


def test_codex_rollout_reads_messages_and_call_outputs_named_by_their_call(read, transcripts):
    [path] = (transcripts / "codex").glob("rollout-*.jsonl")
    records, problems, skipped = read(path)
    assert problems == []
    session = "019ad3b2-5c4e-7a10-9f2b-6e8d4c2a1b07"
    assert {r.session for r in records} == {session}
    assert [(r.role, r.metadata.get("tool")) for r in records] == [
        ("user", None),  # AGENTS.md, as codex hands it to the model
        ("user", None),  # the environment context
        ("user", None),
        ("tool", "shell"),
        ("tool", "apply_patch"),
        ("tool", "shell"),
        ("assistant", None),
        ("user", None),
        ("assistant", None),  # the compaction's summary
    ]
    cat = records[3]
    assert cat.text == SKILL  # the JSON-wrapped output, unwrapped
    assert (cat.metadata["exit_code"], cat.metadata["item"]) == (0, 5)
    assert records[5].text == "4 passed in 3.12s"  # an output that is a plain string
    assert records[8].metadata["restatement"] == "compact-summary"
    assert cat.identity == f"codex:{session}/5" and cat.external_id == f"{session}/5"
    assert cat.metadata["timestamp"] == "2026-11-30T11:00:07.621Z"
    assert by_what(skipped) == {
        "session_meta line": 1,
        "turn_context line": 1,
        "user_message event": 1,
        "agent_reasoning event": 1,
        "reasoning item": 1,
        "function_call item": 2,
        "exec_command_end event": 1,
        "custom_tool_call item": 1,
        "agent_message event": 1,
        "token_count event": 1,
        "input_image part": 1,
    }


def test_aider_history_is_a_record_per_prompt_reply_and_tool_output(read, transcripts, tmp_path):
    folder = tmp_path / "project"
    shutil.copytree(transcripts / "aider", folder)
    records, problems, skipped = read(folder)  # a hidden file, read because it is a history
    assert problems == []
    assert [(r.role, r.position, r.metadata.get("tool")) for r in records] == [
        ("tool", 4, "aider"),
        ("user", 10, None),
        ("assistant", 14, None),
        ("tool", 29, "aider"),
        ("user", 33, None),
        ("tool", 34, "/run"),
        ("tool", 41, "aider"),
        ("user", 44, None),
        ("assistant", 46, None),
    ]
    prompt, reply = records[1], records[2]
    assert prompt.text == (
        "Make the backfill resumable:\nskip rows that already have settled_at,\n"
        "and log progress every batch."
    )
    assert "\n#### What changes\n" in reply.text and reply.text.endswith("```")
    assert "> Each batch is its own transaction" in reply.text
    assert records[5].text.endswith(
        "4 passed in 3.08s\nAdd command output to the chat? (Y)es/(N)o [Yes]: n"
    )
    assert [r.session for r in records] == ["2026-11-28 09:14:02"] * 6 + ["2026-11-29 16:40:55"] * 3
    assert [r.metadata.get("turn") for r in records] == [None, 0, 0, 0, 1, 1, None, 0, 0]
    assert by_what(skipped) == {"session start line": 2}


def test_hidden_files_that_are_no_history_are_skipped(read, tmp_path):
    (tmp_path / ".artifacts.jsonl").write_text('{"kind": "skill"}\n', encoding="utf-8")
    records, problems, skipped = read(tmp_path)
    assert (records, problems, by_what(skipped)) == ([], [], {"hidden file": 1})


def test_chatgpt_export_follows_the_branch_the_user_saw(read, transcripts):
    records, problems, skipped = read(transcripts / "chatgpt" / "conversations.json")
    assert problems == []
    first = [r for r in records if r.session.startswith("6929f0a8")]
    assert [(r.role, r.metadata["content_type"], r.metadata.get("tool")) for r in first] == [
        ("user", "text", None),
        ("assistant", "text", None),  # the regenerated answer, not the first one
        ("user", "multimodal_text", None),
        ("assistant", "code", "python"),
        ("tool", "execution_output", "python"),
        ("assistant", "text", None),
    ]
    assert not any("Just run ALTER TABLE" in r.text for r in records)
    assert first[4].text == "4822"
    node = first[1]
    assert node.identity == "chatgpt:6929f0a8-1c2d-800b-9e4f-5a6b7c8d9e0f/n-a1"
    assert node.metadata["title"] == "NOT NULL without downtime"
    assert node.metadata["timestamp"] == "2025-11-30T10:04:02.900000+00:00"
    assert len(records) == 8
    assert by_what(skipped) == {
        "hidden system message": 1,
        "hidden user message": 1,
        "thoughts message": 1,
        "image_asset_pointer part": 1,
    }


def test_anthropic_request_pretty_printed_reads_the_tool_result_by_its_call(read, transcripts):
    records, problems, skipped = read(transcripts / "messages" / "anthropic-request.json")
    assert problems == []
    assert [(r.role, r.metadata.get("tool"), r.metadata.get("turn")) for r in records] == [
        ("system", None, None),
        ("user", None, 0),
        ("assistant", None, 1),
        ("tool", "read_file", 2),
        ("assistant", None, 3),
    ]
    assert records[3].text == SKILL
    assert {r.metadata["format"] for r in records} == {"messages"}
    assert by_what(skipped) == {"tool_use block": 1}


def test_openai_chat_document_names_a_tool_message_by_its_call(read, transcripts):
    records, problems, skipped = read(transcripts / "messages" / "openai-chat.json")
    assert problems == []
    assert [(r.role, r.metadata.get("tool")) for r in records] == [
        ("system", None),
        ("user", None),
        ("tool", "web_fetch"),
        ("assistant", None),
    ]
    assert by_what(skipped) == {"image_url block": 1, "tool_calls entry": 1}


def test_gemini_checkpoint_reads_text_and_function_responses(read, transcripts):
    records, problems, skipped = read(transcripts / "messages" / "checkpoint-settled-at.json")
    assert problems == []
    assert [(r.role, r.metadata.get("tool"), r.metadata["format"]) for r in records] == [
        ("user", None, "gemini"),
        ("tool", "read_file", "gemini"),
        ("model", None, "gemini"),
    ]
    assert records[1].text.startswith("from django.db import migrations")
    assert by_what(skipped) == {"thought part": 1, "functionCall part": 1}


def test_an_object_with_messages_on_one_line_is_a_document(read, tmp_path):
    path = tmp_path / "request.txt"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}), "utf-8")
    records, problems, _ = read(path)
    assert problems == [] and [(r.role, r.text) for r in records] == [("user", "hi")]


def test_a_pretty_printed_document_of_no_known_shape_is_one_problem(read, tmp_path):
    path = tmp_path / "session.json"
    path.write_text(json.dumps({"sessionId": "s1", "turns": []}, indent=2), "utf-8")
    records, problems, _ = read(path)
    assert records == []
    assert [str(p) for p in problems] == [
        f"{path}: unknown transcript shape: a JSON document (keys: sessionId, turns)"
    ]


def test_plain_markdown_stays_one_record(read, tmp_path):
    path = tmp_path / "notes.md"
    path.write_text("# Retro\n\n#### Went well  \n\n- the backfill\n", encoding="utf-8")
    records, problems, _ = read(path)
    assert problems == [] and len(records) == 1
    assert records[0].metadata == {"format": "document"}


def test_formats_are_recognised_by_content_not_by_name(read, transcripts, tmp_path):
    for number, original in enumerate(sorted(transcripts.rglob("*.json*"))):
        renamed = tmp_path / f"file-{number}.txt"
        shutil.copy(original, renamed)
        expected, _, _ = read(original)
        records, problems, _ = read(renamed)
        assert problems == []
        assert [r.text for r in records] == [r.text for r in expected]
        assert {r.metadata["format"] for r in records} == {r.metadata["format"] for r in expected}
