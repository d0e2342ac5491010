"""The manifest and the database agree: a registration whose manifest line cannot be written
(a folder in its place, a disk that fills mid-line) is not in force and leaves no torn line;
a torn last line is repaired by the next write; sync_manifest names every difference and mends
them, and verify_audit names them."""

import errno

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from filter import ArtifactRecord
from poimen.ledger import manifest
from poimen.ledger.manifest import ManifestUnwritable, manifest_append, manifest_read
from poimen.models import Artifact, Event
from poimen.services import artifact_register
from tests.conftest import UNRELATED
from tests.factories import demo_skill

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chained_as_committed")]


def register(name="release-notes"):
    return artifact_register(kind="skill", name=name, text=demo_skill(name))


def test_a_manifest_that_cannot_be_written_leaves_the_artifact_out_of_force(
    api, settings, tmp_path
):
    settings.POIMEN_MANIFEST = tmp_path / "vault"  # a folder where the file should be
    settings.POIMEN_MANIFEST.mkdir()
    with pytest.raises(ManifestUnwritable, match="the manifest cannot be written"):
        register()
    body = {"kind": "skill", "name": "incident-review", "text": demo_skill("incident-review")}
    answer = api.post("/api/v1/artifacts", body)
    assert answer.status_code == 503
    assert "nothing was registered" in answer.json()["detail"]
    assert not Artifact.objects.exists()
    assert not Event.objects.filter(type="artifact_registered").exists()


class DiskFillsMidLine:
    """The manifest's file, on a disk that fills after half of the next write."""

    def __init__(self, stream):
        self.stream = stream

    def __getattr__(self, name):
        return getattr(self.stream, name)

    def __iter__(self):
        return iter(self.stream)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self.stream.__exit__(*exc)

    def write(self, data):
        self.stream.write(data[: len(data) // 2])
        self.stream.flush()
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_disk_that_fills_mid_line_leaves_no_torn_line_and_nothing_in_force(
    manifest_in_tmp, monkeypatch
):
    register("incident-review")
    size = manifest_in_tmp.stat().st_size
    monkeypatch.setattr(
        manifest, "open", lambda *a, **k: DiskFillsMidLine(open(*a, **k)), raising=False
    )
    with pytest.raises(ManifestUnwritable, match="No space left on device"):
        register("release-notes")
    monkeypatch.undo()
    assert manifest_in_tmp.stat().st_size == size
    assert list(Artifact.objects.values_list("name", flat=True)) == ["incident-review"]
    register("release-notes")
    assert [a.name for a in manifest_read(manifest_in_tmp)] == ["incident-review", "release-notes"]


def test_sync_manifest_names_and_mends_every_difference(manifest_in_tmp, capsys):
    register("incident-review")
    register("release-notes")
    # A line torn by a crash (its artifact stored), and a line of an artifact never stored.
    text = manifest_in_tmp.read_text(encoding="utf-8")
    first, second = text.splitlines(keepends=True)
    elsewhere = ArtifactRecord.from_text(kind="reference", name="guide", text=UNRELATED)
    manifest_in_tmp.write_text(first + elsewhere.to_json_line() + "\n" + second[:40])
    with pytest.raises(CommandError) as failed:
        call_command("verify_audit")
    assert "`poimen sync_manifest` mends them" in str(failed.value)
    out = capsys.readouterr().out
    assert "skill/release-notes" in out and "stored, not in the manifest" in out
    assert "reference/guide" in out and "in the manifest, not stored" in out
    with pytest.raises(CommandError):
        call_command("sync_manifest", "--dry-run")
    call_command("sync_manifest")
    assert "2 differences mended" in capsys.readouterr().out
    assert sorted(a.name for a in manifest_read(manifest_in_tmp)) == [
        "guide",
        "incident-review",
        "release-notes",
    ]
    assert Artifact.objects.filter(kind="reference", name="guide").exists()
    call_command("sync_manifest", "--dry-run")
    assert "agree" in capsys.readouterr().out
    call_command("verify_audit")


def test_appending_nothing_new_repairs_a_torn_line_too(manifest_in_tmp):
    register()
    whole = manifest_in_tmp.read_text(encoding="utf-8")
    manifest_in_tmp.write_text(whole + '{"kind": "sk')
    read = [a for a in manifest_read(manifest_in_tmp) if isinstance(a, ArtifactRecord)]
    assert manifest_append(manifest_in_tmp, read) == 0
    assert manifest_in_tmp.read_text(encoding="utf-8") == whole
