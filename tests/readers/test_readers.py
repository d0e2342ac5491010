"""Source readers: shapes recognised by content, stable ids, every bad input reported."""

import json

from poimen.readers import Skipped


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_records_jsonl_keeps_id_source_and_provenance(tmp_path, read):
    path = write_jsonl(
        tmp_path / "export.data",
        [
            {"id": "r1", "text": "first", "source": "vault", "role": "user", "session": "s1"},
            {"id": 2, "text": "second", "metadata": {"lang": "en"}},
        ],
    )
    records, problems, _ = read(path)
    assert problems == []
    assert [(r.source, r.external_id, r.role, r.session) for r in records] == [
        ("vault", "r1", "user", "s1"),
        ("records", "2", "", ""),
    ]
    assert records[1].metadata == {"lang": "en"}
    assert records[1].position == 2


def test_cli_source_label_is_the_default_for_records_without_one(tmp_path, read):
    path = write_jsonl(tmp_path / "a.jsonl", [{"id": "r1", "text": "x"}])
    records, _, _ = read(path, default_source="nightly")
    assert records[0].source == "nightly"


def test_chat_transcript_with_string_and_block_content(tmp_path, read):
    path = write_jsonl(
        tmp_path / "chat.jsonl",
        [
            {"role": "user", "content": "How do I rotate the logs?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Use logrotate."},
                    {"type": "image", "source": {}},
                    {"type": "text", "text": "Weekly is fine."},
                ],
            },
        ],
    )
    records, problems, skipped = read(path)
    assert problems == []
    assert [(r.role, r.text) for r in records] == [
        ("user", "How do I rotate the logs?"),
        ("assistant", "Use logrotate.\n\nWeekly is fine."),
    ]
    assert records[0].session == "chat"
    assert skipped == [Skipped("image block", str(path), 2)]


def test_chat_ids_do_not_depend_on_line_numbers(tmp_path, read):
    path = write_jsonl(
        tmp_path / "chat.jsonl",
        [{"role": "user", "content": "ok"}, {"role": "user", "content": "ok"}],
    )
    first, _, _ = read(path)
    path.write_text("\n" + path.read_text(), encoding="utf-8")
    again, _, _ = read(path)
    assert [r.external_id for r in first] == [r.external_id for r in again]
    assert len({r.external_id for r in first}) == 2


def agent_line(kind, uuid, content, **extra):
    return {
        "type": kind,
        "sessionId": "sess-1",
        "uuid": uuid,
        "message": {"role": kind, "content": content},
        **extra,
    }


def test_agent_session_text_and_tool_results_become_records(tmp_path, read):
    skill = "     1→---\n     2→name: release-notes\n     3→---"
    path = write_jsonl(
        tmp_path / "0b9c.jsonl",
        [
            {"type": "summary", "summary": "Release notes", "leafUuid": "u0"},
            agent_line("user", "u1", "Write the release notes"),
            agent_line(
                "assistant",
                "u2",
                [
                    {"type": "thinking", "thinking": "I should read the skill"},
                    {"type": "text", "text": "Reading the skill first."},
                    {"type": "tool_use", "id": "t1", "name": "Read", "input": {}},
                ],
            ),
            agent_line(
                "user",
                "u3",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": skill}],
                    }
                ],
            ),
            agent_line(
                "user", "u4", [{"type": "tool_result", "tool_use_id": "t2", "content": "ok"}]
            ),
            {"type": "file-history-snapshot", "messageId": "m1", "snapshot": {}},
        ],
    )
    records, problems, skipped = read(path)
    assert problems == []
    assert [(r.external_id, r.role, r.text) for r in records] == [
        ("sess-1/u1/0", "user", "Write the release notes"),
        ("sess-1/u2/1", "assistant", "Reading the skill first."),
        ("sess-1/u3/0", "tool", skill),
        ("sess-1/u4/0", "tool", "ok"),
    ]
    assert all(r.session == "sess-1" and r.source == "claude-code" for r in records)
    assert records[2].metadata["tool_use_id"] == "t1"
    assert sorted(s.what for s in skipped) == [
        "file-history-snapshot line",
        "summary line",
        "thinking block",
        "tool_use block",
    ]


def test_text_file_is_one_record_whatever_its_name(tmp_path, read):
    (tmp_path / "notes").write_text("# Notes\n\nSome words.\n", encoding="utf-8")
    records, problems, _ = read(tmp_path / "notes")
    assert problems == []
    assert records[0].text.startswith("# Notes")
    assert records[0].source == "document"


def test_folder_is_read_recursively_in_a_stable_order_without_hidden_files(tmp_path, read):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "two.md").write_text("two", encoding="utf-8")
    (tmp_path / "a.txt").write_text("one", encoding="utf-8")
    (tmp_path / ".artifacts.jsonl").write_text("{}", encoding="utf-8")
    records, problems, _ = read(tmp_path)
    assert problems == []
    assert [r.text for r in records] == ["one", "two"]


def test_reading_twice_gives_the_same_ids(tmp_path, read):
    write_jsonl(tmp_path / "chat.jsonl", [{"role": "user", "content": "hello there"}])
    (tmp_path / "doc.md").write_text("a document", encoding="utf-8")
    first, _, _ = read(tmp_path)
    second, _, _ = read(tmp_path)
    assert [r.external_id for r in first] == [r.external_id for r in second]


# -- bad input: each reported as path:line: why, the good lines go on -------------------------


def test_malformed_json_line_is_reported_and_the_rest_read(tmp_path, read):
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": "a", "text": "good"}\n{"id": "b", "text": \n', encoding="utf-8")
    records, problems, _ = read(path)
    assert [r.external_id for r in records] == ["a"]
    assert str(problems[0]).startswith(f"{path}:2: malformed JSON")


def test_line_without_text_is_reported(tmp_path, read):
    path = write_jsonl(tmp_path / "r.jsonl", [{"id": "a"}, {"id": "b", "text": "fine"}])
    records, problems, _ = read(path)
    assert [r.external_id for r in records] == ["b"]
    assert str(problems[0]) == f'{path}:1: line without "text"'


def test_empty_text_is_reported(tmp_path, read):
    path = write_jsonl(tmp_path / "r.jsonl", [{"id": "a", "text": "  \n"}])
    records, problems, _ = read(path)
    assert records == []
    assert str(problems[0]) == f"{path}:1: empty text"


def test_invalid_utf8_line_is_reported(tmp_path, read):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"id": "a", "text": "caf\xe9"}\n{"id": "b", "text": "ok"}\n')
    records, problems, _ = read(path)
    assert [r.external_id for r in records] == ["b"]
    assert str(problems[0]).startswith(f"{path}:1: invalid UTF-8 at byte")


def test_binary_file_is_reported(tmp_path, read):
    path = tmp_path / "image.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)) * 8)
    records, problems, _ = read(path)
    assert records == []
    assert str(problems[0]) == f"{path}: binary file (mostly non-text bytes), not read"


def test_record_over_the_size_limit_is_reported(tmp_path, read):
    path = write_jsonl(
        tmp_path / "r.jsonl",
        [{"id": "big", "text": "word " * 2_000_000}, {"id": "small", "text": "fine"}],
    )
    records, problems, _ = read(path)
    assert [r.external_id for r in records] == ["small"]
    assert str(problems[0]).startswith(f"{path}:1: record of 10.0 MB exceeds the limit of 1.0 MB")


def test_missing_path_is_reported(tmp_path, read):
    records, problems, _ = read(tmp_path / "nowhere.jsonl")
    assert records == []
    assert str(problems[0]) == f"{tmp_path / 'nowhere.jsonl'}: no such file or directory"


def test_unknown_transcript_shape_is_reported(tmp_path, read):
    path = write_jsonl(tmp_path / "r.jsonl", [{"speaker": "bob", "said": "hi"}])
    records, problems, _ = read(path)
    assert records == []
    assert str(problems[0]) == f"{path}:1: unknown transcript shape (keys: said, speaker)"


def test_agent_line_without_uuid_is_reported(tmp_path, read):
    line = agent_line("user", "", "hello")
    path = write_jsonl(tmp_path / "s.jsonl", [line])
    _, problems, _ = read(path)
    assert str(problems[0]) == f'{path}:1: a "user" line without a "uuid"'


def test_text_file_over_the_size_limit_is_reported(tmp_path, read):
    path = tmp_path / "dump.md"
    path.write_text("word " * 2_000_000, encoding="utf-8")
    records, problems, _ = read(path)
    assert records == []
    assert str(problems[0]).startswith(f"{path}: record of 10.0 MB exceeds the limit of 1.0 MB")


def test_text_file_with_invalid_utf8_is_reported(tmp_path, read):
    path = tmp_path / "latin1.txt"
    path.write_bytes("Notes on the café".encode("latin-1"))
    records, problems, _ = read(path)
    assert records == []
    assert str(problems[0]) == f"{path}: invalid UTF-8 at byte 16"


def test_jsonl_saved_with_a_byte_order_mark_is_still_jsonl(tmp_path, read):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"id": "a", "text": "first"}).encode() + b"\n")
    records, problems, _ = read(path)
    assert problems == []
    assert [r.external_id for r in records] == ["a"]


def test_a_json_array_of_no_known_shape_is_reported_not_a_document(tmp_path, read):
    path = tmp_path / "export.json"
    path.write_text(json.dumps([{"speaker": "lee", "said": "hi"}]), encoding="utf-8")
    records, problems, _ = read(path)
    assert records == []
    assert str(problems[0]) == f"{path}: unknown transcript shape: a JSON array of no known format"


def test_a_document_that_starts_with_a_bracket_is_a_document(tmp_path, read):
    path = tmp_path / "notes.md"
    path.write_text("[draft] Notes from the retro.\n", encoding="utf-8")
    records, problems, _ = read(path)
    assert problems == [] and records[0].text.startswith("[draft]")


def test_an_id_too_long_to_store_is_reported(tmp_path, read):
    path = write_jsonl(tmp_path / "r.jsonl", [{"id": "x" * 501, "text": "fine"}])
    _, problems, _ = read(path)
    assert str(problems[0]) == f'{path}:1: "id" is longer than 500 characters'


def test_a_deep_path_makes_an_id_that_fits(tmp_path, read):
    folder = tmp_path
    for _ in range(12):
        folder = folder / ("d" * 40)
    folder.mkdir(parents=True)
    (folder / "notes.md").write_text("Notes.", encoding="utf-8")
    [record], _, _ = read(folder / "notes.md")
    assert record.external_id.startswith("path-sha256:") and len(record.external_id) <= 500
    assert record.source_path == str((folder / "notes.md").resolve())
