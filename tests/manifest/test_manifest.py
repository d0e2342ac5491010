"""The append-only manifest file: read with line-precise errors, appended once per artifact."""

import io

from filter import ArtifactRecord
from poimen.ledger.manifest import manifest_append, manifest_read, manifest_write
from tests.factories import demo_skill


def artifact(name="release-notes", text=None):
    return ArtifactRecord.from_text(kind="skill", name=name, text=text or demo_skill(name))


def test_append_writes_each_artifact_once(tmp_path):
    path = tmp_path / "vault" / ".artifacts.jsonl"
    assert manifest_append(path, [artifact(), artifact()]) == 1
    assert manifest_append(path, [artifact(), artifact("incident-review")]) == 1
    assert [a.name for a in manifest_read(path)] == ["release-notes", "incident-review"]


def test_append_after_a_line_cut_short_repairs_it(tmp_path):
    path = tmp_path / "m.jsonl"
    whole = artifact("incident-review").to_json_line() + "\n"
    path.write_text(whole + '{"kind": "skill", "name": "half', encoding="utf-8")
    manifest_append(path, [artifact()])
    items = list(manifest_read(path))
    assert [item.name for item in items] == ["incident-review", "release-notes"]
    assert path.read_text(encoding="utf-8").startswith(whole)


def test_read_reports_invalid_utf8_with_its_line(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_bytes(artifact().to_json_line().encode() + b"\n\xff\xfe\n")
    items = list(manifest_read(path))
    assert isinstance(items[0], ArtifactRecord)
    assert str(items[1]) == f"{path}:2: invalid UTF-8 at byte 0"


def test_write_is_one_line_per_artifact_that_reads_back():
    stream = io.StringIO()
    assert manifest_write(stream, [artifact(), artifact("incident-review")]) == 2
    lines = stream.getvalue().splitlines()
    assert ArtifactRecord.from_json_line(lines[1]).name == "incident-review"
