"""Registering artifacts: stored once, a manifest line once, imports from folders and manifests."""

import json

import pytest

from filter import ArtifactRecord, ShingleParams
from poimen.ledger.manifest import manifest_read
from poimen.models import Artifact, Event
from poimen.services import (
    InputError,
    artifact_name_from_text,
    artifact_register,
    artifacts_import,
    manifest_export,
)
from tests.factories import DEMO_DATA, demo_skill


def manifest_lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.django_db
def test_registering_twice_stores_once_and_appends_once(manifest_in_tmp):
    text = demo_skill("release-notes")
    first = artifact_register(kind="skill", name="release-notes", text=text)
    again = artifact_register(kind="skill", name="release-notes", text=text)
    assert (first.created, first.appended) == (True, True)
    assert (again.created, again.appended) == (False, False)
    assert again.artifact.pk == first.artifact.pk
    assert len(manifest_lines(manifest_in_tmp)) == 1
    assert Event.objects.filter(type=Event.Type.ARTIFACT_REGISTERED).count() == 1


@pytest.mark.django_db
def test_a_lost_manifest_line_is_appended_again_on_the_next_registration(manifest_in_tmp):
    text = demo_skill("release-notes")
    artifact_register(kind="skill", name="release-notes", text=text)
    manifest_in_tmp.write_text("", encoding="utf-8")
    assert artifact_register(kind="skill", name="release-notes", text=text).appended
    assert len(manifest_lines(manifest_in_tmp)) == 1


@pytest.mark.django_db
def test_manifest_line_is_the_cards_format_with_shingling(manifest_in_tmp):
    artifact_register(kind="skill", name="release-notes", text=demo_skill("release-notes"))
    [line] = manifest_lines(manifest_in_tmp)
    assert {"kind", "name", "sha256", "shingles", "emitted_at", "shingling", "text"} <= set(line)
    assert line["kind"] == "skill"


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["", "Skill", "two__underscores", "with space", "k" * 51])
def test_a_kind_that_is_not_a_slug_is_refused(kind):
    with pytest.raises(InputError):
        artifact_register(kind=kind, name="x", text="some text")


@pytest.mark.django_db
def test_folder_import_takes_kind_from_folder_and_name_from_front_matter():
    result = artifacts_import(path=DEMO_DATA / "artifacts")
    assert result.problems == []
    assert set(Artifact.objects.values_list("kind", "name")) == {
        ("skill", "release-notes"),
        ("skill", "postgres-migrations"),
        ("skill", "incident-review"),
        ("reference", "django-bulk-create"),
        ("reference", "postgres-lock-timeout"),
    }
    again = artifacts_import(path=DEMO_DATA / "artifacts")
    assert (again.registered, again.already, again.appended) == (0, 5, 0)


@pytest.mark.django_db
def test_folder_import_kind_option_wins_and_stem_names_plain_files(tmp_path):
    (tmp_path / "deploy.md").write_text("# Deploy\n\nShip it on Tuesdays.\n", encoding="utf-8")
    result = artifacts_import(path=tmp_path, kind="runbook")
    assert result.registered == 1
    assert Artifact.objects.get().name == "deploy"
    assert Artifact.objects.get().kind == "runbook"


def test_front_matter_name_or_fallback():
    assert artifact_name_from_text("---\nname: 'x-y'\n---\nbody", fallback="f") == "x-y"
    assert artifact_name_from_text("# no front matter", fallback="f") == "f"


@pytest.mark.django_db
def test_manifest_import_without_text_still_matches(tmp_path):
    record = ArtifactRecord.from_text(
        kind="skill", name="release-notes", text=demo_skill("release-notes")
    )
    manifest = tmp_path / "other.jsonl"
    manifest.write_text(record.to_json_line(with_text=False) + "\n", encoding="utf-8")
    result = artifacts_import(path=manifest)
    assert result.registered == 1
    artifact = Artifact.objects.get()
    assert artifact.text == ""
    from poimen.decision.artifact_index import artifact_index_load

    verdict = artifact_index_load().filter.check(demo_skill("release-notes"))
    assert verdict.derived


@pytest.mark.django_db
def test_manifest_import_reports_bad_lines_and_imports_the_rest(tmp_path):
    good = ArtifactRecord.from_text(kind="skill", name="a", text=demo_skill("incident-review"))
    manifest = tmp_path / "m.jsonl"
    manifest.write_text('{"kind": "skill"\n' + good.to_json_line() + "\n", encoding="utf-8")
    result = artifacts_import(path=manifest)
    assert result.registered == 1
    assert result.problems[0].startswith(f"{manifest}:1: not valid JSON")


@pytest.mark.django_db
def test_shingles_under_other_params_without_text_are_refused(tmp_path):
    record = ArtifactRecord.from_text(
        kind="skill",
        name="a",
        text=demo_skill("incident-review"),
        params=ShingleParams(k=7),
    )
    manifest = tmp_path / "m.jsonl"
    good = ArtifactRecord.from_text(kind="skill", name="b", text=demo_skill("release-notes"))
    manifest.write_text(
        good.to_json_line() + "\n" + record.to_json_line(with_text=False) + "\n", encoding="utf-8"
    )
    result = artifacts_import(path=manifest)
    assert result.registered == 1
    assert result.problems[0].startswith(f"{manifest}:2: skill/a: shingles made with")
    assert "no text to make them again" in result.problems[0]


@pytest.mark.django_db
def test_shingles_under_other_params_with_text_are_made_again(tmp_path):
    record = ArtifactRecord.from_text(
        kind="skill", name="a", text=demo_skill("incident-review"), params=ShingleParams(k=7)
    )
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(record.to_json_line() + "\n", encoding="utf-8")
    assert artifacts_import(path=manifest).registered == 1
    assert Artifact.objects.get().shingle_k == 5


@pytest.mark.django_db
def test_export_then_import_elsewhere_round_trips(tmp_path):
    import io

    artifacts_import(path=DEMO_DATA / "artifacts")
    stream = io.StringIO()
    assert manifest_export(stream=stream) == 5
    exported = tmp_path / "export.jsonl"
    exported.write_text(stream.getvalue(), encoding="utf-8")
    records = list(manifest_read(exported))
    assert all(isinstance(r, ArtifactRecord) for r in records)
    assert {r.key for r in records} == set(Artifact.objects.values_list("kind", "name", "sha256"))


@pytest.mark.django_db
def test_folder_import_reports_a_name_too_long_to_store(tmp_path):
    (tmp_path / "a.md").write_text("---\nname: " + "n" * 300 + "\n---\n# A\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n\nShip it on Tuesdays.\n", encoding="utf-8")
    result = artifacts_import(path=tmp_path, kind="runbook")
    assert result.registered == 1
    assert result.problems == [
        f"{tmp_path / 'a.md'}: an artifact needs a name of 1 to 255 characters"
    ]


@pytest.mark.django_db
def test_artifacts_shingled_under_old_params_are_made_again_once_and_kept(make_artifact):
    from poimen.decision.artifact_index import artifact_index_load

    artifact = make_artifact(name="release-notes")
    Artifact.objects.filter(pk=artifact.pk).update(shingle_k=7, shingles=b"\0" * 8)
    assert artifact_index_load().filter.check(demo_skill("release-notes")).derived
    stored = Artifact.objects.get(pk=artifact.pk)
    assert stored.shingle_k == 5
    assert len(bytes(stored.shingles)) == 8 * len(
        ArtifactRecord.from_text(kind="skill", name="x", text=artifact.text).shingles
    )
