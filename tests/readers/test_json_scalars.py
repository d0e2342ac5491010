"""A JSON line that is a string or a number is named as such, not as "not JSON"."""

import json


def test_a_json_scalar_line_is_not_called_a_comment(read, tmp_path):
    path = tmp_path / "notes.jsonl"
    lines = [{"id": "a", "text": "A good note."}, "just a string", 42, {"id": "b", "text": "More."}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + "# a comment\n")
    records, problems, _ = read(path)
    assert [r.external_id for r in records] == ["a", "b"]
    assert [str(p) for p in problems] == [
        f"{path}:2: not a JSON object but str",
        f"{path}:3: not a JSON object but int",
        f"{path}:5: not JSON (a comment or header line?) among JSON lines",
    ]
