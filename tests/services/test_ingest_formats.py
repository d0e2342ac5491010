"""The transcript formats end to end: identity across source labels, the compact summary
excluded under its own kind, policies in force per batch, the run's progress."""

import json
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from poimen.models import Event, IngestRun, KindPolicy, Record
from poimen.services import records_ingest, threshold_change
from tests.factories import demo_skill, near_copy

pytestmark = pytest.mark.django_db

TRANSCRIPTS = Path(__file__).resolve().parent.parent / "texts" / "transcripts"
CLAUDE_SESSION = TRANSCRIPTS / "claude-code" / "3c1e9f4a-7b2d-4e8f-a6c5-0d9b8e7f6a51.jsonl"


@pytest.mark.parametrize("fmt", ["claude-code", "codex", "chatgpt"])
def test_the_same_session_under_another_label_adds_nothing(fmt):
    first = records_ingest(paths=[TRANSCRIPTS / fmt], source="laptop")
    again = records_ingest(paths=[TRANSCRIPTS / fmt], source="desktop")
    assert first.new > 0
    assert (again.new, again.already) == (0, first.new)
    assert set(Record.objects.values_list("source", flat=True)) == {"laptop"}


def test_records_without_an_identity_keep_the_source_and_id_key(tmp_path):
    shutil.copytree(TRANSCRIPTS / "aider", tmp_path / "aider")
    first = records_ingest(paths=[tmp_path / "aider"], source="laptop")
    again = records_ingest(paths=[tmp_path / "aider"], source="desktop")
    assert again.new == first.new == 9
    assert not Record.objects.exclude(identity="").exists()


def test_a_skill_read_in_a_codex_rollout_is_excluded(make_artifact):
    make_artifact(name="postgres-migrations")
    result = records_ingest(paths=[TRANSCRIPTS / "codex"])
    excluded = Record.objects.get(status="excluded", metadata__tool="shell")
    assert result.excluded == {"skill": 1, "compact-summary": 1}
    assert excluded.text == demo_skill("postgres-migrations")


def test_the_compact_summary_is_excluded_under_its_own_kind_with_an_event(make_artifact):
    make_artifact(name="postgres-migrations")
    result = records_ingest(paths=[CLAUDE_SESSION])
    assert result.excluded == {"skill": 2, "compact-summary": 1}
    summary = Record.objects.get(metadata__restatement="compact-summary")
    assert (summary.status, summary.derived) == ("excluded", True)
    event = Event.objects.get(record=summary)
    assert (event.type, event.kind, event.artifact) == ("derived_excluded", "compact-summary", None)
    assert event.data["decided_by"] == "restatement"


def test_a_compact_summary_policy_of_one_keeps_them_as_evidence(make_artifact):
    make_artifact(name="postgres-migrations")
    records_ingest(paths=[CLAUDE_SESSION])
    change = threshold_change(kind="compact-summary", value=1.0, reason="we want them")
    assert change.released == 1
    summary = Record.objects.get(metadata__restatement="compact-summary")
    assert (summary.status, summary.derived) == ("evidence", False)
    records_ingest(paths=[TRANSCRIPTS / "codex"])
    codex_summary = Record.objects.get(metadata__restatement="compact-summary", source="codex")
    assert codex_summary.status == "evidence"


@pytest.mark.parametrize("workers", [0, 1])
def test_a_threshold_changed_during_a_run_decides_the_batches_written_after_it(
    make_artifact, tmp_path, workers
):
    make_artifact(name="release-notes")
    # excluded whole when derived: under redact, a near copy is a pasted passage, cut at any
    # threshold under 1 (tests/services/test_pasted_passages.py)
    KindPolicy.objects.create(kind="skill", on_derived="exclude")
    text = near_copy(demo_skill("release-notes"))
    path = tmp_path / "records.jsonl"
    rows = [{"id": f"r{i}", "text": f"{text}\n{i}"} for i in range(4)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")

    def change_after_the_first_batch(result):
        if result.new == 1:
            threshold_change(kind="skill", value=0.99, reason="too eager")

    result = records_ingest(
        paths=[path], batch_size=1, workers=workers, on_progress=change_after_the_first_batch
    )
    statuses = dict(Record.objects.values_list("external_id", "status"))
    assert statuses == {"r0": "evidence", "r1": "evidence", "r2": "evidence", "r3": "evidence"}
    # Checked twice: the batches already checked (or in a worker) when the change was seen;
    # the run checks the later ones under the new threshold alone.
    assert result.rechecked == 1 + workers
    # r0 was stored before the change and released by it: one exclusion event, one release.
    assert Event.objects.filter(type="derived_excluded").count() == 1
    assert Event.objects.filter(type="status_changed").count() == 1


@pytest.mark.parametrize("workers", [0, 1])
def test_a_min_shared_changed_during_a_run_decides_the_batches_written_after_it(
    make_artifact, tmp_path, workers
):
    make_artifact(name="release-notes")
    text = near_copy(demo_skill("release-notes"))
    path = tmp_path / "records.jsonl"
    rows = [{"id": f"r{i}", "text": f"{text}\n{i}"} for i in range(3)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")

    def change_after_the_first_batch(result):
        if result.new == 1:
            # More shared shingles than the skill has: no record can match it any more.
            KindPolicy.objects.update_or_create(kind="skill", defaults={"min_shared": 10_000})

    records_ingest(
        paths=[path], batch_size=1, workers=workers, on_progress=change_after_the_first_batch
    )
    statuses = dict(Record.objects.values_list("external_id", "status"))
    # r0 was written before the change (which decides no stored record again).
    assert statuses == {"r0": "excluded", "r1": "evidence", "r2": "evidence"}
    assert not Record.objects.filter(external_id__in=["r1", "r2"], matches__isnull=False).exists()


def test_every_batch_leaves_the_counts_so_far_and_a_sign_of_life(tmp_path):
    path = tmp_path / "records.jsonl"
    rows = [{"id": f"r{i}", "text": f"note {i}"} for i in range(3)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    seen = []

    def look(result):
        run = IngestRun.objects.get(pk=result.run.pk)
        seen.append((run.counts["new"], run.last_batch_at is not None, run.unfinished))

    records_ingest(paths=[path], batch_size=1, on_progress=look)
    assert seen == [(1, True, False), (2, True, False), (3, True, False)]


def test_a_run_silent_for_long_without_finishing_is_unfinished():
    stale = timezone.now() - IngestRun.STALE_AFTER - timedelta(seconds=1)
    crashed = IngestRun.objects.create(source="x", last_batch_at=stale)
    running = IngestRun.objects.create(source="y", last_batch_at=timezone.now())
    done = IngestRun.objects.create(source="z", last_batch_at=stale, finished_at=stale)
    assert (crashed.unfinished, running.unfinished, done.unfinished) == (True, False, False)
