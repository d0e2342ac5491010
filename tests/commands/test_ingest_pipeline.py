"""The operators' commands through call_command: output, exit codes, the card's flow
(docs/card.md)."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from poimen.models import Artifact, Event, IngestRun, KindPolicy, Record
from tests.factories import DEMO_DATA, demo_skill

pytestmark = pytest.mark.django_db


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def exit_code(*args) -> int:
    try:
        run(*args)
    except CommandError as error:
        return error.returncode
    return 0


@pytest.fixture
def copies(tmp_path):
    path = tmp_path / "copies.jsonl"
    rows = [
        {"id": "copy", "text": demo_skill("release-notes")},
        {"id": "note", "text": "Lee reviews the notes today."},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_add_artifact_registers_and_appends_once(tmp_path, manifest_in_tmp):
    skill = DEMO_DATA / "artifacts" / "skill" / "release-notes" / "SKILL.md"
    out, _ = run("add_artifact", str(skill), "--kind", "skill")
    assert "skill/release-notes" in out and "registered" in out
    out, _ = run("add_artifact", str(skill), "--kind", "skill", "--name", "release-notes")
    assert "already registered; manifest already holds it" in out
    assert len(manifest_in_tmp.read_text().splitlines()) == 1


def test_add_artifact_of_a_missing_file_is_bad_input(tmp_path):
    assert exit_code("add_artifact", str(tmp_path / "nope.md")) == 2


def test_import_artifacts_then_export_manifest(tmp_path):
    out, _ = run("import_artifacts", str(DEMO_DATA / "artifacts"))
    assert out.startswith("5 registered")
    output = tmp_path / "manifest.jsonl"
    run("export_manifest", "--output", str(output))
    assert len(output.read_text().splitlines()) == 5
    out, _ = run("export_manifest")
    assert json.loads(out.splitlines()[0])["kind"] in {"skill", "reference"}


def test_import_artifacts_with_bad_lines_exits_2(tmp_path):
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("not json\n", encoding="utf-8")
    assert exit_code("import_artifacts", str(manifest)) == 2


def test_ingest_then_verify_exits_0(copies):
    run("import_artifacts", str(DEMO_DATA / "artifacts"))
    out, _ = run("ingest", str(copies), "--source", "vault")
    assert (
        "read 2, new 2, already ingested 0, skipped 0, excluded 1 (skill 1), redacted 0 (none), "
        "errors 0" in out
    )
    assert exit_code("verify_derived") == 0


def test_unfiltered_ingest_warns_logs_and_fails_verify(copies):
    run("import_artifacts", str(DEMO_DATA / "artifacts"))
    out, err = run("ingest", str(copies), "--no-derived-filter")
    assert "WARNING: the derived filter is OFF" in err
    assert "UNFILTERED" in out
    assert Event.objects.filter(type=Event.Type.FILTER_DISABLED).count() == 1
    assert not IngestRun.objects.get().filtered
    with pytest.raises(CommandError) as raised:
        run("verify_derived")
    assert raised.value.returncode == 1
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("verify_derived", stdout=out)
    assert "records:copy matches skill/release-notes" in out.getvalue()


def test_ingest_summary_counts_already_ingested_and_errors(copies, tmp_path):
    run("ingest", str(copies))
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "x", "text": "ok"}\n{oops\n', encoding="utf-8")
    with pytest.raises(CommandError) as raised:
        call_command("ingest", str(copies), str(broken), stdout=io.StringIO(), stderr=io.StringIO())
    assert raised.value.returncode == 2
    assert Record.objects.filter(external_id="x").exists()


def test_ingest_is_quiet_when_not_on_a_terminal(copies):
    out, _ = run("ingest", str(copies))
    # the summary, and how to verify what reaches evidence
    assert "\r" not in out and len(out.splitlines()) == 2
    assert out.splitlines()[1].endswith("manage.py verify_derived")


def test_ingest_refuses_a_batch_size_below_one(copies):
    assert exit_code("ingest", str(copies), "--batch-size", "0") == 2


def test_refilter_after_adding_artifacts(copies):
    run("ingest", str(copies))
    run("import_artifacts", str(DEMO_DATA / "artifacts"))
    out, _ = run("refilter", "--kind", "skill")
    assert out.startswith("checked 2: 1 newly excluded")
    assert Record.objects.get(external_id="copy").status == "excluded"


def test_set_threshold_applies_and_logs(copies):
    run("import_artifacts", str(DEMO_DATA / "artifacts"))
    run("ingest", str(copies))
    out, _ = run("set_threshold", "skill", "1.0", "--reason", "audit drill")
    assert "skill: threshold 0.8 -> 1; moved: 1 excluded -> evidence;" in out
    assert "verify_derived on the 1 records moved: 1 reach evidence, 0 still derived" in out
    assert KindPolicy.objects.get(kind="skill").threshold == 1.0


def test_set_threshold_below_the_floor_or_without_reason_is_bad_usage():
    assert exit_code("set_threshold", "skill", "0.05", "--reason", "x") == 2
    with pytest.raises(CommandError):
        run("set_threshold", "skill", "0.5")  # argparse: --reason is required


def test_export_records_writes_each_decision(copies, tmp_path):
    run("import_artifacts", str(DEMO_DATA / "artifacts"))
    run("ingest", str(copies), "--source", "vault")
    output = tmp_path / "records.jsonl"
    run("export_records", "--output", str(output))
    lines = {line["id"]: line for line in map(json.loads, output.read_text().splitlines())}
    copy = Record.objects.get(external_id="copy")
    assert lines["copy"] == {
        "id": "copy",
        "record_pk": copy.pk,
        "source": "vault",
        "status": "excluded",
        "evidence_text": None,
        "spans": None,
        "derived": True,
        "kind": "skill",
        "artifact": "release-notes",
        "overlap": lines["copy"]["overlap"],
        "verdict": None,
        "reason": None,
        "reviewer": None,
        "note": None,
        "reviewed_at": None,
        "run": copy.run_id,
        "created_at": copy.created_at.isoformat(),
        # provenance: a records line says only what its own metadata holds
        "format": None,
        "session": None,
        "role": None,
        "tool": None,
        "turn": None,
        "agent": None,
        "timestamp": None,
        "location": f"{copies.resolve()}:1",
    }
    assert lines["copy"]["overlap"] > 0.8
    assert lines["note"]["artifact"] is None and lines["note"]["status"] == "evidence"


def test_demo_sets_everything_up_and_prints_a_password(django_user_model):
    out, _ = run("demo", "--no-serve")
    assert Artifact.objects.count() == 5
    # verbatim copies are excluded; a skill pasted inside a longer genuine turn is redacted
    assert Record.objects.get(external_id="mem-0001").status == "excluded"
    pasted = Record.objects.get(external_id="mem-0009")
    assert pasted.status == "redacted" and "backfill" in pasted.evidence_text
    assert "lock_timeout" not in pasted.evidence_text
    assert Record.objects.filter(status="excluded").count() == 4
    # the section of a skill a review followed, pasted into its turn: a pasted passage, cut
    assert Record.objects.get(external_id="mem-0008").status == "redacted"
    assert Record.objects.filter(status="redacted").count() == 3
    password = out.split("log in as reviewer / ")[1].split()[0]
    user = django_user_model.objects.get(username="reviewer")
    assert user.check_password(password)
    assert user.groups.filter(name="threshold admins").exists()  # the admin role
    assert user.has_perm("poimen.review_record") and user.has_perm("poimen.tune_threshold")
    again, _ = run("demo", "--no-serve")
    assert "new 0, already ingested 23" in again


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_ingest_draws_progress_on_a_terminal(copies):
    out = Terminal()
    call_command("ingest", str(copies), "--batch-size", "1", stdout=out)
    assert "\r  read 1  new 1" in out.getvalue()
    assert "records/s" in out.getvalue()


def test_refilter_after_an_unfiltered_ingest_makes_verify_pass(copies):
    run("import_artifacts", str(DEMO_DATA / "artifacts"))
    run("ingest", str(copies), "--no-derived-filter")
    assert exit_code("verify_derived") == 1
    out, _ = run("refilter")
    assert out.startswith("checked 2: 1 newly excluded")
    assert exit_code("verify_derived") == 0


def test_an_artifact_that_cannot_be_matched_stops_the_commands_with_exit_2(copies):
    from django.utils import timezone

    Artifact.objects.create(
        kind="skill",
        name="old-format",
        sha256="0" * 64,
        shingle_normaliser="norm-v0",
        shingle_k=5,
        shingle_hash="xxh3-64-mix-v1",
        shingles=b"\0" * 80,
        n_tokens=14,
        emitted_at=timezone.now(),
    )
    with pytest.raises(CommandError, match="skill/old-format") as raised:
        run("ingest", str(copies))
    assert raised.value.returncode == 2
    assert not Record.objects.exists()
    assert exit_code("refilter") == 2
    assert exit_code("verify_derived") == 2


@pytest.mark.parametrize("command", ["export_manifest", "export_records"])
def test_an_export_to_a_path_it_cannot_write_is_bad_usage_and_leaves_nothing(command, tmp_path):
    missing_folder = tmp_path / "no" / "such" / "out.jsonl"
    with pytest.raises(CommandError) as error:
        run(command, "--output", str(missing_folder))
    assert error.value.returncode == 2 and str(tmp_path / "no" / "such") in str(error.value)

    a_folder = tmp_path / "folder"
    a_folder.mkdir()
    assert exit_code(command, "--output", str(a_folder)) == 2
    assert sorted(path.name for path in tmp_path.iterdir()) == ["folder"]  # no temporary left


def test_an_export_replaces_its_file_whole(copies, tmp_path):
    output = tmp_path / "records.jsonl"
    output.write_text("an older export\n" * 1000, encoding="utf-8")
    run("ingest", str(copies))

    run("export_records", "--output", str(output))

    lines = output.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["note", "copy"]  # newest first


def test_a_kind_no_artifact_has_is_refused_by_set_threshold_and_refilter(copies):
    run("import_artifacts", str(DEMO_DATA / "artifacts"))

    with pytest.raises(CommandError) as error:
        run("set_threshold", "skil", "0.7", "--reason", "typo")
    assert error.value.returncode == 2
    assert "'skil'" in str(error.value) and "known: reference, skill" in str(error.value)
    assert not KindPolicy.objects.filter(kind="skil").exists()
    assert exit_code("refilter", "--kind", "skil") == 2
    assert exit_code("set_threshold", "skill", "0.7", "--reason", "a real kind") == 0


def test_add_artifact_refuses_a_binary_file_and_warns_of_one_too_short_to_match(
    tmp_path, manifest_in_tmp
):
    binary = tmp_path / "tool.txt"
    binary.write_bytes(b"ELF\0\0\0 some header bytes\0")
    with pytest.raises(CommandError) as error:
        run("add_artifact", str(binary), "--kind", "skill")
    assert error.value.returncode == 2 and "NUL bytes" in str(error.value)
    assert not Artifact.objects.exists()

    short = tmp_path / "short.md"
    short.write_text("Always run the linter before you push.\n", encoding="utf-8")
    out, err = run("add_artifact", str(short), "--kind", "skill")
    assert "registered" in out
    assert "no record can ever match it" in err


def test_ingest_says_how_many_problems_and_whether_anything_was_ingested(copies, tmp_path):
    missing = tmp_path / "missing.jsonl"

    with pytest.raises(CommandError) as nothing:
        run("ingest", str(missing))
    assert str(nothing.value) == "1 problem in the input (listed above); nothing could be read"

    with pytest.raises(CommandError) as some:
        run("ingest", str(missing), str(tmp_path / "also-missing.md"), str(copies))
    assert str(some.value) == "2 problems in the input (listed above); the rest was ingested"
    assert Record.objects.count() == 2
