"""records_ingest end to end: the card's acceptance (docs/card.md) on stored records, matches
and events."""

import json
import re

import pytest

from poimen.models import Event, IngestRun, Match, Record
from poimen.services import records_ingest
from tests.factories import DEMO_DATA, NEAR_MISS, demo_skill

pytestmark = pytest.mark.django_db

DISCUSSION = (
    'I looked at the release-notes skill again. It says: "Release notes are read by people '
    "deciding whether to upgrade. Lead with what changes for them, not with what we did. A note "
    'that lists commits in merge order is a changelog." That is right for libraries, but for '
    "the desktop app most readers never upgrade by hand, so I would lead with the new features "
    "there. We should also decide who signs off the notes before the tag is pushed; nobody "
    "owned that last month, and the draft sat in a branch for a week."
)


def reformatted(text: str) -> str:
    """What a model does to a skill it quotes: no front matter, other bullets, fenced, indented."""
    body = text.split("---", 2)[2]
    body = re.sub(r"^- ", "* ", body, flags=re.MULTILINE)
    body = re.sub(r"^\d+\. ", "- ", body, flags=re.MULTILINE)
    return "```\n" + "\n".join("    " + line for line in body.splitlines()) + "\n```"


def write_records(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def skills(make_artifact):
    return {
        name: make_artifact(name=name)
        for name in ("release-notes", "postgres-migrations", "incident-review")
    }


@pytest.fixture
def transcript(tmp_path):
    return write_records(
        tmp_path / "records.jsonl",
        [
            {"id": "verbatim", "text": demo_skill("release-notes"), "session": "s1"},
            {"id": "reformatted", "text": reformatted(demo_skill("postgres-migrations"))},
            {"id": "mention", "text": "Use the incident-review skill for Friday's review."},
            {"id": "discussion", "text": DISCUSSION},
            {"id": "near-miss", "text": NEAR_MISS},
            {"id": "unrelated", "text": "The backup job failed because the replica disk filled."},
        ],
    )


def statuses():
    return dict(Record.objects.values_list("external_id", "status"))


def test_copies_are_excluded_and_discussion_is_not(skills, transcript):
    result = records_ingest(paths=[transcript])
    assert (result.read, result.new, result.errors) == (6, 6, 0)
    assert statuses() == {
        "verbatim": "excluded",
        "reformatted": "excluded",
        "mention": "evidence",
        "discussion": "evidence",
        # the skill's steps pasted into a genuine turn: cut, and the turn kept
        "near-miss": "redacted",
        "unrelated": "evidence",
    }
    assert result.excluded == {"skill": 2}
    near = Record.objects.get(external_id="near-miss")
    assert near.evidence_text.startswith("For the 2.4 notes I followed the steps")
    assert "Two of them did not fit this release." in near.evidence_text


def test_every_exclusion_is_logged_with_provenance_and_what_it_matched(skills, transcript):
    records_ingest(paths=[transcript], source="vault")
    event = Event.objects.get(type=Event.Type.DERIVED_EXCLUDED, record__external_id="verbatim")
    assert event.artifact == skills["release-notes"]
    assert event.kind == "skill"
    assert event.data["source"] == "vault"
    assert event.data["session"] == "s1"
    assert event.data["position"] == 1
    assert event.data["source_path"] == str(transcript.resolve())
    assert event.data["artifact"]["name"] == "release-notes"
    assert event.data["overlap"] > event.data["threshold"] == 0.8
    assert Event.objects.filter(type=Event.Type.DERIVED_EXCLUDED).count() == 2


def test_near_misses_above_the_floor_are_stored_as_matches(skills, transcript):
    records_ingest(paths=[transcript])
    near_miss = Record.objects.get(external_id="near-miss")
    match = Match.objects.get(record=near_miss)
    assert 0.2 <= match.overlap < 0.8
    assert match.artifact == skills["release-notes"]
    assert near_miss.best_overlap == pytest.approx(match.overlap, abs=1e-6)
    assert near_miss.best_artifact == skills["release-notes"]
    assert not Match.objects.filter(record__external_id="unrelated").exists()


def test_a_second_run_adds_nothing(skills, transcript):
    records_ingest(paths=[transcript])
    counts = (Record.objects.count(), Match.objects.count(), Event.objects.count())
    again = records_ingest(paths=[transcript])
    assert (again.new, again.already) == (0, 6)
    assert (Record.objects.count(), Match.objects.count(), Event.objects.count()) == counts


def test_without_artifacts_nothing_is_excluded_and_nothing_fails(transcript):
    result = records_ingest(paths=[transcript])
    assert result.new == 6 and not result.excluded
    assert set(statuses().values()) == {"evidence"}


def test_the_run_records_its_thresholds_and_counts(skills, transcript):
    result = records_ingest(paths=[transcript], source="vault")
    run = IngestRun.objects.get(pk=result.run.pk)
    assert run.filtered and run.finished_at is not None
    assert run.thresholds == {"skill": 0.8}
    assert run.counts["new"] == 6 and run.counts["excluded"] == {"skill": 2}
    assert run.source == "vault"


def test_unfiltered_run_is_marked_and_logged(skills, transcript):
    result = records_ingest(paths=[transcript], filtered=False)
    assert not IngestRun.objects.get(pk=result.run.pk).filtered
    event = Event.objects.get(type=Event.Type.FILTER_DISABLED)
    assert event.run_id == result.run.pk
    assert set(statuses().values()) == {"evidence"}
    assert not Match.objects.exists()


def test_records_span_several_batches(skills, tmp_path):
    rows = [{"id": f"r{i}", "text": f"note number {i} about the week"} for i in range(7)]
    rows.append({"id": "copy", "text": demo_skill("incident-review")})
    path = write_records(tmp_path / "many.jsonl", rows)
    result = records_ingest(paths=[path], batch_size=3)
    assert result.new == 8
    assert statuses()["copy"] == "excluded"


def test_a_batch_that_fails_to_write_leaves_nothing_of_itself(skills, tmp_path, monkeypatch):
    rows = [{"id": f"r{i}", "text": demo_skill("incident-review") + f"\n{i}"} for i in range(4)]
    path = write_records(tmp_path / "copies.jsonl", rows)
    from poimen.models import events as services  # events are written by the audit log's writer

    original = services.insert_all
    calls = []

    def fail_on_second_batch_of_events(objs, **options):
        if objs and isinstance(objs[0], Event):
            calls.append(len(objs))
            if len(calls) == 2:
                raise RuntimeError("disk full")
        return original(objs, **options)

    monkeypatch.setattr(services, "insert_all", fail_on_second_batch_of_events)
    with pytest.raises(RuntimeError):
        records_ingest(paths=[path], batch_size=2)
    assert sorted(statuses()) == ["r0", "r1"]
    assert Match.objects.count() == 2
    monkeypatch.undo()
    again = records_ingest(paths=[path], batch_size=2)
    assert (again.new, again.already) == (2, 2)
    assert Event.objects.filter(type=Event.Type.DERIVED_EXCLUDED).count() == 4


def test_duplicate_ids_in_one_input_are_stored_once(tmp_path):
    path = write_records(
        tmp_path / "dup.jsonl", [{"id": "a", "text": "first"}, {"id": "a", "text": "again"}]
    )
    result = records_ingest(paths=[path])
    assert (result.new, result.already) == (1, 1)
    assert Record.objects.get().text == "first"


def test_the_agent_session_skill_read_behind_a_gutter_is_excluded(skills):
    records_ingest(paths=[DEMO_DATA / "transcripts" / "agent-session-6f1d2c7e.jsonl"])
    tool_result = Record.objects.get(role="tool", text__contains="release-notes")
    assert tool_result.status == "excluded"
    assert tool_result.session == "6f1d2c7e-4b1a-4f3e-9a55-2d8c1e0b7a31"
    assert Record.objects.filter(status="evidence").count() == Record.objects.count() - 1


def test_checking_in_worker_processes_stores_the_same_as_in_process(skills, tmp_path):
    rows = [{"id": f"r{i}", "text": f"note {i} on the weekly sync"} for i in range(9)]
    rows += [{"id": "copy", "text": demo_skill("incident-review")}, {"id": "r0", "text": "dup"}]
    path = write_records(tmp_path / "many.jsonl", rows)
    result = records_ingest(paths=[path], batch_size=2, workers=2, source="parallel")
    assert (result.new, result.already, result.excluded) == (10, 1, {"skill": 1})
    in_process = records_ingest(paths=[path], batch_size=2, workers=0, source="serial")
    assert in_process.new == 10

    def stored(source):
        return sorted(
            Record.objects.filter(source=source).values_list(
                "external_id", "text", "status", "best_overlap"
            )
        )

    assert stored("parallel") == stored("serial")
    assert (
        Record.objects.get(source="parallel", external_id="r0").text == "note 0 on the weekly sync"
    )


def test_records_another_ingest_stored_meanwhile_are_counted_not_duplicated(
    make_record, tmp_path, monkeypatch
):
    from poimen.services import batches as services

    make_record(source="records", external_id="a", text="stored by the other ingest")
    path = write_records(
        tmp_path / "r.jsonl", [{"id": "a", "text": "first"}, {"id": "b", "text": "second"}]
    )
    real = services.existing_record_keys
    calls = []

    def blind_first_lookup(keys):
        calls.append(keys)
        return set() if len(calls) == 1 else real(keys)

    monkeypatch.setattr(services, "existing_record_keys", blind_first_lookup)
    result = records_ingest(paths=[path])
    assert (result.new, result.already) == (1, 1)
    assert dict(Record.objects.values_list("external_id", "text")) == {
        "a": "stored by the other ingest",
        "b": "second",
    }


def test_a_source_label_too_long_to_store_is_refused(tmp_path):
    from poimen.services import InputError

    path = write_records(tmp_path / "r.jsonl", [{"id": "a", "text": "first"}])
    with pytest.raises(InputError):
        records_ingest(paths=[path], source="s" * 256)


def test_an_input_of_one_batch_is_checked_without_starting_workers(skills, tmp_path, monkeypatch):
    from poimen.decision.check_pool import BatchChecker

    def no_fork(self):
        raise AssertionError("workers started for a single batch")

    monkeypatch.setattr(BatchChecker, "_start_workers", no_fork)
    path = write_records(
        tmp_path / "one.jsonl", [{"id": "copy", "text": demo_skill("incident-review")}]
    )
    assert records_ingest(paths=[path], workers=2).excluded == {"skill": 1}
