"""A record pasted from a skill and a reference page, through the app: ingest stores its
coverage across kinds and an event naming what matched and the threshold in force; threshold
changes on either kind, the tuning preview, a refilter of one kind, a policy change, a redaction
and verify_derived all decide it from what was stored as a check of the text would."""

import json

import pytest

from poimen.decision.artifact_index import artifact_index_load
from poimen.models import Event, KindPolicy, Record
from poimen.selectors import caches_clear
from poimen.services import (
    derived_verify,
    kind_policy_change,
    records_ingest,
    records_refilter,
    threshold_change,
    threshold_preview,
)
from tests import renderings
from tests.texts import reference, skill, turn

pytestmark = pytest.mark.django_db

SKILL, REFERENCE = "git-commit-message", "celery-task-retries"


def share_of(text: str, share: float, *, seed: int) -> str:
    return renderings.word_slice(text, words=int(len(text.split()) * share), seed=seed)


def pasted(seed: int, *, own: str = "") -> str:
    parts = [
        share_of(skill(SKILL), 0.62, seed=seed),
        own,
        share_of(reference(REFERENCE), 0.63, seed=seed + 1),
    ]
    return "\n\n".join(part for part in parts if part)


RECORDS = {
    "pasted": pasted(1, own="Both of them, as they are on the wiki today."),
    # The same with a paragraph of one's own between: less of it is copied.
    "with-discussion": pasted(2, own=turn("mention-by-name")),
    "skill-only": share_of(skill(SKILL), 0.6, seed=3),
    "quotes": turn("discussion-quoting-a-skill-and-a-reference"),
    "unrelated": turn("unrelated-asyncio"),
}


@pytest.fixture
def ingested(make_artifact, tmp_path):
    make_artifact(kind="skill", name=SKILL, text=skill(SKILL))
    make_artifact(kind="reference", name=REFERENCE, text=reference(REFERENCE))
    for kind in ("skill", "reference"):
        KindPolicy.objects.create(kind=kind, on_derived=KindPolicy.OnDerived.EXCLUDE)
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps({"id": k, "text": t}) + "\n" for k, t in RECORDS.items()))
    records_ingest(paths=[path])
    return {r.external_id: r for r in Record.objects.all()}


def rechecked() -> dict[str, bool]:
    """What checking every record's text again says now, with the stored policies."""
    derived_filter = artifact_index_load().filter
    records = list(Record.objects.order_by("external_id"))
    verdicts = derived_filter.check_many([r.text for r in records])
    return {r.external_id: v.derived for r, v in zip(records, verdicts, strict=True)}


def stored() -> dict[str, bool]:
    return dict(Record.objects.order_by("external_id").values_list("external_id", "derived"))


def test_ingest_excludes_the_pasted_record_and_stores_its_coverage_across_kinds(ingested):
    record = ingested["pasted"]
    assert record.status == "excluded" and record.derived
    assert record.best_overlap < 0.8
    assert record.mixed_coverage["kinds"] == {"reference": 1, "skill": 1}
    assert record.mixed_coverage["n_kinds"] == 2
    assert record.mixed_coverage["coverage"] > 0.9
    assert all(c["coverage"] < 0.8 for c in record.coverage.values())
    assert ingested["quotes"].status == "evidence"
    assert ingested["unrelated"].mixed_coverage == {}
    assert stored() == rechecked()


def test_the_exclusion_event_names_what_matched_and_the_threshold_in_force(make_artifact, tmp_path):
    make_artifact(kind="skill", name=SKILL, text=skill(SKILL))
    make_artifact(kind="reference", name=REFERENCE, text=reference(REFERENCE))
    KindPolicy.objects.create(kind="reference", threshold=0.85)
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"id": "pasted", "text": RECORDS["pasted"]}) + "\n")
    records_ingest(paths=[path])
    record = Record.objects.get(external_id="pasted")
    event = Event.objects.get(record=record, type=Event.Type.DERIVED_EXCLUDED)

    assert event.data["decided_by"] == "coverage across kinds"
    assert event.data["threshold"] == 0.85  # the higher of skill's 0.8 and reference's 0.85
    assert event.data["overlap"] == round(record.mixed_coverage["coverage"], 6)
    assert event.data["kinds"] == ["reference", "skill"]
    text = event.describe()
    assert "threshold: 0.85" in text and "decided by: coverage across kinds" in text
    assert f"skill/{SKILL}" in text and f"reference/{REFERENCE}" in text


@pytest.mark.parametrize("kind", ["skill", "reference"])
def test_a_threshold_change_of_either_kind_agrees_with_checking_the_text_again(ingested, kind):
    coverage = ingested["pasted"].mixed_coverage["coverage"]
    for value in (coverage, coverage - 0.001, 0.95, 0.5, 1.0, 0.8):
        threshold_change(kind=kind, value=value, reason=f"try {value}")
        assert stored() == rechecked(), value
    assert stored()["pasted"]


def test_raising_one_kind_over_the_coverage_releases_the_record_and_lowering_excludes(ingested):
    coverage = ingested["pasted"].mixed_coverage["coverage"]
    caches_clear()
    preview = threshold_preview("reference", coverage)

    result = threshold_change(kind="reference", value=coverage, reason="stricter")

    assert result.released == preview.newly_released >= 1
    record = Record.objects.get(external_id="pasted")
    assert record.status == "evidence"
    released = Event.objects.filter(record=record, type=Event.Type.STATUS_CHANGED).latest("id")
    assert released.data["across_kinds"]["threshold"] == coverage  # reference's, the highest
    said = released.describe()  # (jsonb keeps the snapshot's keys in an order of its own)
    assert "across kinds: " in said and "kinds reference, skill" in said
    assert f"coverage {coverage:.2f}" in said and f"threshold {coverage:.2f}" in said
    caches_clear()
    back = threshold_preview("reference", 0.8)
    assert threshold_change(kind="reference", value=0.8, reason="back").excluded == (
        back.newly_excluded
    )
    assert Record.objects.get(external_id="pasted").status == "excluded"


def test_a_refilter_of_one_kind_stores_what_a_full_check_stores(make_artifact, tmp_path):
    make_artifact(kind="skill", name=SKILL, text=skill(SKILL))
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps({"id": k, "text": t}) + "\n" for k, t in RECORDS.items()))
    records_ingest(paths=[path])
    # the skill's part alone is under the threshold, but a pasted passage: cut (redact, the
    # default), and the rest kept
    assert Record.objects.get(external_id="pasted").status == "redacted"

    make_artifact(kind="reference", name=REFERENCE, text=reference(REFERENCE))
    assert records_refilter(kind="reference").excluded == 1
    by_kind = dict(Record.objects.values_list("external_id", "mixed_coverage"))

    records_refilter()
    assert dict(Record.objects.values_list("external_id", "mixed_coverage")) == by_kind
    assert stored() == rechecked()
    assert Record.objects.get(external_id="pasted").status == "excluded"


def test_a_redacting_pair_of_kinds_cuts_both_kinds_passages(ingested):
    record = ingested["with-discussion"]
    assert record.derived and all(c["coverage"] < 0.8 for c in record.coverage.values())
    kind_policy_change(kind="skill", on_derived="redact", reason="keep the rest")
    # one of the kinds that decided it excludes: excluded whole
    assert Record.objects.get(pk=record.pk).status == "excluded"

    kind_policy_change(kind="reference", on_derived="redact", reason="keep the rest")

    record = Record.objects.get(pk=record.pk)
    assert record.status == "redacted"
    assert "Basket.subtotal()" in record.evidence_text  # the words of one's own are kept
    for copied in (
        share_of(skill(SKILL), 0.62, seed=2),
        share_of(reference(REFERENCE), 0.63, seed=3),
    ):
        middle = " ".join(copied.split()[40:50])
        assert middle in record.text and middle not in record.evidence_text
    assert derived_verify().offenders == []


def test_verify_names_a_pasted_record_let_through_by_an_unfiltered_ingest(make_artifact, tmp_path):
    make_artifact(kind="skill", name=SKILL, text=skill(SKILL))
    make_artifact(kind="reference", name=REFERENCE, text=reference(REFERENCE))
    KindPolicy.objects.create(kind="reference", threshold=0.85)
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"id": "pasted", "text": RECORDS["pasted"]}) + "\n")
    records_ingest(paths=[path], filtered=False)

    [offender] = derived_verify().offenders

    assert offender.threshold == 0.85
    assert offender.overlap > 0.9
    assert offender.artifact in {SKILL, REFERENCE}
