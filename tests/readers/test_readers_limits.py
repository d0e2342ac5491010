"""What a reader refuses without reading it all: a line over the limit, a mostly non-text file."""

import json
import tracemalloc


def test_a_line_of_64_mb_is_refused_without_holding_it(read, tmp_path):
    path = tmp_path / "records.jsonl"
    with open(path, "wb") as stream:
        stream.write(b'{"id": "big", "text": "')
        chunk = b"word " * 200_000
        for _ in range(64):
            stream.write(chunk)
        stream.write(b'"}\n' + json.dumps({"id": "next", "text": "kept"}).encode() + b"\n")
    tracemalloc.start()
    records, problems, _ = read(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [str(p) for p in problems] == [
        f"{path}:1: record of 64.0 MB exceeds the limit of 1.0 MB (POIMEN_MAX_RECORD_BYTES)"
    ]
    assert [r.external_id for r in records] == ["next"]
    assert peak < 8 * 1024 * 1024


def test_a_file_of_mostly_non_text_bytes_is_refused_whole(read, tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_bytes(bytes(range(1, 32)) * 300 + b'\n{"id": "a", "text": "x"}\n')
    records, problems, _ = read(path)
    assert records == []
    assert [str(p) for p in problems] == [f"{path}: binary file (mostly non-text bytes), not read"]


def test_a_record_id_too_long_for_the_column_is_a_problem_for_its_line(read, tmp_path):
    line = {"type": "user", "sessionId": "s" * 300, "uuid": "u" * 300, "message": {"content": "x"}}
    path = tmp_path / "session.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    _, problems, _ = read(path)
    assert [str(p) for p in problems] == [
        f'{path}:1: "sessionId" and "uuid" are longer than 500 characters'
    ]
