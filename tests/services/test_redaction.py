"""Redaction through the real pipeline: ingest cuts the copied passages of a derived record of a
redacting kind and keeps the rest as evidence; a policy or threshold change, a refilter, a
review and verify_derived all work from what was stored."""

import json
import re

import pytest

from filter import ArtifactRecord, DerivedFilter, match_passages, words
from filter.redaction import CUT_MARKER
from poimen.models import Event, KindPolicy, Match, Record
from poimen.services import (
    derived_verify,
    kind_policy_change,
    records_export,
    records_ingest,
    records_refilter,
    review_record,
    review_undo,
    threshold_change,
)
from tests.renderings import read_tool_gutter
from tests.texts import SKILL_MARKER, skill, turn

pytestmark = pytest.mark.django_db

MARKER = re.compile(re.escape(CUT_MARKER).replace(re.escape("{length}"), r"\d+"))
GENUINE_TURN = turn("long-session")
DISCUSSION = (
    "Stop there for a moment. The second half is where the instructions go wrong for our "
    "project, since we never run the suite against SQLite and the fixtures assume it. I would "
    "keep the first half as it is and rewrite the rest with the team tomorrow."
)
AROUND_THE_GUTTER = (
    "This is the file as the read tool showed it, because you asked which version the agent "
    "had loaded when it wrote that commit message.",
    "It still tells the agent to keep every line short, which explains the odd line breaks in "
    "the web view. I will ask the team to reword that part.",
)


def halves_with_a_discussion() -> str:
    text = skill("django-test-suite")
    cut = text.index("\n## ", len(text) // 2)
    return f"{text[:cut]}\n\n{DISCUSSION}\n{text[cut:]}"


RECORDS = {
    "embedded": GENUINE_TURN.replace(SKILL_MARKER, skill("git-commit-message")),
    "halves": halves_with_a_discussion(),
    "gutter": (
        f"{AROUND_THE_GUTTER[0]}\n\n{read_tool_gutter(skill('git-commit-message'))}\n\n"
        f"{AROUND_THE_GUTTER[1]}"
    ),
    "verbatim": skill("flaky-test-triage"),
    "mention": turn("mention-by-name"),
    "quote": turn("discussion-quoting-one-sentence"),
}


@pytest.fixture
def ingested(make_artifact, tmp_path):
    for name in ("git-commit-message", "django-test-suite", "flaky-test-triage"):
        make_artifact(name=name, text=skill(name))
    path = tmp_path / "turns.jsonl"
    path.write_text(
        "".join(json.dumps({"id": key, "text": text}) + "\n" for key, text in RECORDS.items()),
        encoding="utf-8",
    )
    records_ingest(paths=[path], source="turns")
    return path


def record(external_id: str) -> Record:
    return Record.objects.get(external_id=external_id)


def genuine_words(evidence: str) -> list[str]:
    return words(MARKER.sub(" ", evidence))


def passages_left(evidence: str, name: str) -> list:
    return match_passages(
        evidence, ArtifactRecord.from_text(kind="skill", name=name, text=skill(name))
    )


@pytest.fixture
def no_rematching(monkeypatch):
    def refuse(self, texts):
        raise AssertionError("a decision from stored data checked a text again")

    monkeypatch.setattr(DerivedFilter, "check_many", refuse)


def test_a_skill_embedded_in_a_longer_turn_keeps_every_word_of_the_turn_and_none_of_the_skill(
    ingested,
):
    embedded = record("embedded")
    assert (embedded.status, embedded.derived) == ("redacted", True)
    assert genuine_words(embedded.evidence_text) == words(GENUINE_TURN.replace(SKILL_MARKER, ""))
    assert passages_left(embedded.evidence_text, "git-commit-message") == []
    assert embedded.text == RECORDS["embedded"]  # the original is kept for review


def test_two_halves_of_a_skill_with_a_discussion_between_keep_the_discussion(ingested):
    halves = record("halves")
    assert halves.status == "redacted"
    assert genuine_words(halves.evidence_text) == words(DISCUSSION)
    assert len(halves.cut_spans) == 2


def test_a_skill_behind_a_line_number_gutter_leaves_no_gutter_numbers_or_skill_words(ingested):
    gutter = record("gutter")
    assert gutter.status == "redacted"
    assert genuine_words(gutter.evidence_text) == words(" ".join(AROUND_THE_GUTTER))
    assert not re.search(r"\d+→", gutter.evidence_text)


def test_a_verbatim_copy_is_excluded_whole(ingested):
    verbatim = record("verbatim")
    assert (verbatim.status, verbatim.cut_spans, verbatim.evidence_text) == ("excluded", [], "")
    assert verbatim.evidence is None


@pytest.mark.parametrize("external_id", ["mention", "quote"])
def test_a_mention_and_a_one_sentence_quote_are_untouched(ingested, external_id):
    untouched = record(external_id)
    assert (untouched.status, untouched.cut_spans) == ("evidence", [])
    assert untouched.evidence == RECORDS[external_id]


def test_a_redaction_is_an_event_with_artifact_kind_overlap_threshold_and_spans(ingested):
    event = Event.objects.get(type="derived_redacted", record=record("embedded"))
    assert event.kind == "skill"
    assert event.data["artifact"]["name"] == "git-commit-message"
    assert (event.data["overlap"], event.data["threshold"]) == (1.0, 0.8)
    assert event.data["spans"] == record("embedded").cut_spans
    assert "characters cut" in event.describe()


def test_every_match_keeps_its_passages_as_spans(ingested):
    match = Match.objects.get(record=record("embedded"))
    ((start, end),) = match.spans
    assert RECORDS["embedded"][start:end].startswith("name: git-commit-message")


def test_a_kind_set_to_exclude_excludes_its_redactions_and_back_from_stored_spans(
    ingested, no_rematching
):
    cuts = record("embedded").cut_spans
    result = kind_policy_change(kind="skill", on_derived="exclude", reason="audit drill")
    assert (result.old, result.new, result.excluded, result.redacted) == ("redact", "exclude", 3, 0)
    assert record("embedded").status == "excluded"
    assert record("embedded").evidence_text == ""
    result = kind_policy_change(kind="skill", on_derived="redact", reason="drill over")
    assert result.redacted == 3
    assert record("embedded").cut_spans == cuts
    assert Event.objects.filter(type="policy_changed").count() == 2


def test_a_threshold_change_re_decides_a_redaction_from_stored_spans(ingested, no_rematching):
    cuts = record("halves").cut_spans
    overlap = record("halves").best_overlap
    threshold_change(kind="skill", value=min(1.0, overlap + 0.001), reason="stricter")
    assert record("halves").status == "evidence"
    result = threshold_change(kind="skill", value=0.8, reason="as it was")
    assert result.redacted >= 1
    assert (record("halves").status, record("halves").cut_spans) == ("redacted", cuts)


def test_refilter_keeps_the_redactions(ingested):
    before = {r.external_id: (r.status, r.cut_spans) for r in Record.objects.all()}
    records_refilter()
    assert {r.external_id: (r.status, r.cut_spans) for r in Record.objects.all()} == before


def test_confirming_a_redaction_keeps_it_a_false_positive_makes_the_record_whole_undo_restores(
    ingested, admin_user
):
    embedded = record("embedded")
    review_record(record=embedded, verdict="confirmed", actor=admin_user)
    assert record("embedded").status == "redacted"
    review_record(record=embedded, verdict="false_positive", actor=admin_user)
    assert record("embedded").evidence == RECORDS["embedded"]
    review_undo(record=embedded, actor=admin_user)
    assert record("embedded").status == "redacted"


def test_verify_checks_the_evidence_text_of_redactions(ingested):
    assert derived_verify().offenders == []
    # a cut that stopped halfway would leave the skill's second half in the evidence text
    embedded = record("embedded")
    start, end = embedded.cut_spans[0]
    half = start + (end - start) // 2
    Record.objects.filter(pk=embedded.pk).update(
        cut_spans=[[start, half]],
        evidence_text=embedded.text[:start] + "[cut]" + embedded.text[half:],
    )
    offenders = derived_verify().offenders
    assert offenders and {offender.external_id for offender in offenders} == {"embedded"}
    assert all("evidence text" in str(offender) for offender in offenders)


def test_export_gives_a_redacted_records_evidence_text_and_spans(ingested, tmp_path):
    output = tmp_path / "export.jsonl"
    with open(output, "w", encoding="utf-8") as stream:
        records_export(stream=stream)
    lines = {line["id"]: line for line in map(json.loads, output.read_text().splitlines())}
    assert lines["embedded"]["status"] == "redacted"
    assert lines["embedded"]["evidence_text"] == record("embedded").evidence_text
    assert lines["embedded"]["spans"] == record("embedded").cut_spans
    assert (lines["verbatim"]["evidence_text"], lines["mention"]["spans"]) == (None, None)


def test_a_kind_that_excludes_keeps_excluding_a_skill_inside_a_longer_turn(make_artifact, tmp_path):
    KindPolicy.objects.create(kind="skill", on_derived=KindPolicy.OnDerived.EXCLUDE)
    make_artifact(name="git-commit-message", text=skill("git-commit-message"))
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"id": "embedded", "text": RECORDS["embedded"]}) + "\n")
    result = records_ingest(paths=[path])
    assert (record("embedded").status, dict(result.excluded)) == ("excluded", {"skill": 1})
