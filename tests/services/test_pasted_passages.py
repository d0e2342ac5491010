"""Issue 20's examples of copies that reached evidence, each on texts of our own: a pasted
paragraph under the record's threshold, a record copying two artifacts, a compaction
sub-agent's summary, a refilter that released a compact summary; and what must stay
untouched: a quoted sentence, a mention."""

import json
import shutil
from pathlib import Path

import pytest

from poimen.models import Record
from poimen.services import (
    artifact_register,
    derived_verify,
    kind_policy_change,
    records_ingest,
    records_refilter,
    threshold_change,
)
from tests import renderings
from tests.texts import reference, skill, turn

pytestmark = pytest.mark.django_db

TRANSCRIPTS = Path(__file__).parents[1] / "texts" / "transcripts"
SESSION = "3c1e9f4a-7b2d-4e8f-a6c5-0d9b8e7f6a51"


@pytest.fixture
def artifacts(db):
    artifact_register(kind="skill", name="flaky-test-triage", text=skill("flaky-test-triage"))
    artifact_register(
        kind="reference", name="django-deployment-guide", text=reference("django-deployment-guide")
    )


def ingest(tmp_path, **texts) -> dict[str, Record]:
    path = tmp_path / "records.jsonl"
    lines = [json.dumps({"id": key, "text": text}) for key, text in texts.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records_ingest(paths=[path], source="pasted")
    return {r.external_id: r for r in Record.objects.filter(source="pasted")}


GENUINE = turn("unrelated-query-plan")


def test_a_pasted_paragraph_under_the_threshold_is_cut_and_the_rest_kept(artifacts, tmp_path):
    pasted = renderings.word_slice(reference("django-deployment-guide"), words=170, seed=4)
    opening = " ".join(GENUINE.split()[:100])
    text = f"{opening}\n\n{pasted}"
    record = ingest(tmp_path, pasted=text)["pasted"]
    match = record.matches.get()
    assert match.overlap < 0.8  # the record as a whole is under the threshold
    assert (record.status, record.derived) == ("redacted", True)  # copies in part
    assert opening in record.evidence_text
    assert " ".join(pasted.split()[60:70]) not in record.evidence_text
    assert derived_verify().offenders == []


def test_a_quoted_sentence_and_a_mention_stay_evidence_untouched(artifacts, tmp_path):
    quoting = turn("discussion-quoting-one-sentence")
    records = ingest(
        tmp_path,
        quoting=quoting,
        mention="Use the flaky-test-triage skill before you add a retry, as we agreed.",
    )
    for record in records.values():
        assert (record.status, record.cut_spans, record.evidence_text) == ("evidence", [], "")


def test_a_record_copying_two_artifacts_loses_both_copies(artifacts, tmp_path):
    skill_copy = skill("flaky-test-triage")
    reference_part = renderings.word_slice(reference("django-deployment-guide"), words=200, seed=9)
    text = f"{GENUINE}\n\n{skill_copy}\n\n{reference_part}"
    record = ingest(tmp_path, both=text)["both"]
    assert record.status == "redacted"
    for copied in (skill_copy, reference_part):
        assert " ".join(copied.split()[30:40]) not in record.evidence_text
    assert derived_verify().offenders == []


def test_a_whole_skill_inside_a_long_turn_is_cut_and_what_is_left_checked_again(
    artifacts, tmp_path
):
    """The skill decides by its own containment while it is a small share of the record; the
    cut leaves the turn, which the matcher checks again at once (remainder_copies): nothing
    there, so the record is redacted, not excluded."""
    long_turn = "\n\n".join([GENUINE] * 6)
    record = ingest(tmp_path, long=f"{long_turn}\n\n{skill('flaky-test-triage')}")["long"]
    assert (record.status, record.derived, record.remainder_copies) == ("redacted", True, False)
    assert record.evidence_text.startswith(GENUINE[:200])
    assert derived_verify().offenders == []


def test_a_policy_change_previews_what_it_applies_and_its_undo_restores(artifacts, tmp_path):
    pasted = renderings.word_slice(reference("django-deployment-guide"), words=170, seed=4)
    ingest(tmp_path, pasted=f"{GENUINE}\n\n{pasted}", whole=skill("flaky-test-triage"))
    before = dict(Record.objects.values_list("external_id", "status"))
    dry_run = kind_policy_change(kind="reference", on_derived="exclude", dry_run=True, reason="")
    assert dict(Record.objects.values_list("external_id", "status")) == before
    applied = kind_policy_change(kind="reference", on_derived="exclude", reason="whole records")
    assert dry_run.moves == applied.moves
    # a pasted passage is cut only where the kind redacts: excluding kinds keep the record
    assert Record.objects.get(external_id="pasted").status == "evidence"
    kind_policy_change(kind="reference", on_derived="redact", reason="back")
    assert dict(Record.objects.values_list("external_id", "status")) == before


def test_paste_words_is_a_policy_value_with_a_floor(artifacts, tmp_path):
    pasted = renderings.word_slice(reference("django-deployment-guide"), words=80, seed=4)
    ingest(tmp_path, pasted=f"{GENUINE}\n\n{pasted}")
    assert Record.objects.get(external_id="pasted").status == "redacted"
    result = kind_policy_change(kind="reference", paste_words=120, reason="longer pastes only")
    assert result.moves == {("redacted", "evidence"): 1}
    with pytest.raises(Exception, match="from 30 up"):
        kind_policy_change(kind="reference", paste_words=12, reason="too short")


@pytest.fixture
def session_with_compaction(tmp_path):
    """A Claude Code session whose compaction sub-agent wrote the summary the main file holds."""
    folder = tmp_path / "project"
    (folder / SESSION / "subagents").mkdir(parents=True)
    main = folder / f"{SESSION}.jsonl"
    shutil.copy(TRANSCRIPTS / "claude-code" / f"{SESSION}.jsonl", main)
    summary = next(
        json.loads(line)["message"]["content"]
        for line in main.read_text().splitlines()
        if '"isCompactSummary"' in line
    )
    summary = summary if isinstance(summary, str) else summary[0]["text"]
    agent = {
        "type": "assistant",
        "uuid": "acompact-1",
        "sessionId": SESSION,
        "agentId": "acompact-5f2a",
        "isSidechain": True,
        "message": {"role": "assistant", "content": [{"type": "text", "text": summary}]},
    }
    path = folder / SESSION / "subagents" / "agent-acompact-5f2a.jsonl"
    path.write_text(json.dumps(agent) + "\n", encoding="utf-8")
    return folder


def test_a_compaction_sub_agents_summary_is_a_restatement(artifacts, session_with_compaction):
    records_ingest(paths=[session_with_compaction])
    restated = Record.objects.filter(metadata__restatement="compact-summary")
    assert restated.count() == 2  # the main file's, and the compaction sub-agent's
    assert set(restated.values_list("status", flat=True)) == {"excluded"}


def test_a_refilter_of_every_kind_or_one_keeps_restatements_out(artifacts, session_with_compaction):
    records_ingest(paths=[session_with_compaction])
    before = dict(Record.objects.values_list("pk", "status"))
    for kind in (None, "skill"):
        result = records_refilter(kind=kind)
        assert (result.released, result.moves) == (0, {})
        assert dict(Record.objects.values_list("pk", "status")) == before
    threshold_change(kind="compact-summary", value=1.0, reason="keep them")
    assert not Record.objects.filter(metadata__restatement="compact-summary", status="excluded")
    threshold_change(kind="compact-summary", value=0.8, reason="back")
    assert dict(Record.objects.values_list("pk", "status")) == before


def test_a_reviewer_confirms_or_releases_a_pasted_passages_cut(artifacts, tmp_path, admin_user):
    from poimen.services import review_record
    from poimen.team.verdicts import verdicts_fitting

    pasted = renderings.word_slice(reference("django-deployment-guide"), words=170, seed=4)
    record = ingest(tmp_path, pasted=f"{GENUINE}\n\n{pasted}")["pasted"]
    assert (record.status, record.derived) == ("redacted", True)
    assert "confirmed" in verdicts_fitting(record) and "false_negative" not in verdicts_fitting(
        record
    )
    review_record(record=record, verdict="confirmed", actor=admin_user)
    assert Record.objects.get(pk=record.pk).status == "redacted"
    review_record(
        record=Record.objects.get(pk=record.pk), verdict="false_positive", actor=admin_user
    )
    assert Record.objects.get(pk=record.pk).status == "evidence"
    result = derived_verify()
    assert (result.offenders, result.released_by_review) == ([], 1)
