"""After ingest: threshold changes from stored matches, refilter, reviews, verify_derived."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from filter import DerivedFilter
from poimen.models import Event, KindPolicy, Match, Record, Review, ThresholdChange
from poimen.services import (
    InputError,
    ThresholdBelowFloor,
    derived_verify,
    records_ingest,
    records_refilter,
    review_record,
    review_undo,
    reviews_bulk,
    threshold_change,
)
from tests.factories import DEMO_DATA, NEAR_MISS, demo_skill

pytestmark = pytest.mark.django_db


@pytest.fixture
def ingested(make_artifact, tmp_path):
    """A copy, a near miss, unrelated text, under a kind that excludes derived records whole
    (redaction has tests of its own: tests/services/test_redaction.py)."""
    KindPolicy.objects.create(kind="skill", on_derived=KindPolicy.OnDerived.EXCLUDE)
    make_artifact(name="release-notes")
    path = tmp_path / "r.jsonl"
    rows = [
        {"id": "copy", "text": demo_skill("release-notes")},
        {"id": "near-miss", "text": NEAR_MISS},
        {"id": "unrelated", "text": "The replica's disk filled up with WAL overnight."},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    records_ingest(paths=[path])
    return {r.external_id: r for r in Record.objects.all()}


def status(external_id):
    return Record.objects.get(external_id=external_id).status


@pytest.fixture
def no_rematching(monkeypatch):
    """Fail the test if anything shingles a record again."""

    def refuse(self, text):
        raise AssertionError("the threshold change re-shingled a record")

    monkeypatch.setattr(DerivedFilter, "check", refuse)
    monkeypatch.setattr(DerivedFilter, "check_many", refuse)


def test_lowering_a_threshold_excludes_near_misses_from_stored_matches(ingested, no_rematching):
    overlap = ingested["near-miss"].best_overlap
    result = threshold_change(kind="skill", value=overlap - 0.01, reason="catch the near miss")
    assert (result.old, result.excluded, result.released) == (0.8, 1, 0)
    assert status("near-miss") == "excluded"
    assert Record.objects.get(external_id="near-miss").derived
    event = Event.objects.get(type=Event.Type.DERIVED_EXCLUDED, record=ingested["near-miss"])
    assert event.data["cause"] == "threshold_changed"
    assert Match.objects.get(record=ingested["near-miss"]).threshold == overlap - 0.01


def test_a_threshold_changes_scans_of_every_record_are_planned_without_jit(ingested):
    """The scan for the records a threshold can move (stored_decisions.
    records_a_threshold_moves), planned without JIT (planning.without_jit): at 10^6 records
    PostgreSQL spent 3-4 s compiling such a scan."""
    if connection.vendor != "postgresql":
        pytest.skip("JIT is PostgreSQL's")
    with CaptureQueriesContext(connection) as queries:
        threshold_change(kind="skill", value=0.9, reason="fewer false positives")
    sqls = [q["sql"] for q in queries.captured_queries]
    jit_off = sqls.index("SET LOCAL jit = off")
    released = next(n for n in range(jit_off, len(sqls)) if sqls[n].startswith("RELEASE SAVEPOINT"))
    scans = [
        n
        for n, sql in enumerate(sqls)
        if sql.startswith('SELECT "poimen_record"."id" AS "pk" FROM')
    ]
    assert len(scans) == 1  # the records the change can move, decided again in Python
    assert all(jit_off < n < released for n in scans)


def test_a_threshold_change_keeps_the_threshold_a_standing_decision_was_made_under(ingested):
    threshold_change(kind="skill", value=0.9, reason="fewer false positives")

    assert status("copy") == "excluded"  # overlap 1.0: still over 0.9, decided at 0.8
    assert Match.objects.get(record=ingested["copy"]).threshold == 0.8


def test_raising_a_threshold_releases_and_logs_each_release(ingested, no_rematching):
    result = threshold_change(kind="skill", value=1.0, reason="nothing is ever a copy")
    assert result.released == 1
    assert status("copy") == "evidence"
    event = Event.objects.get(type=Event.Type.STATUS_CHANGED, record=ingested["copy"])
    assert (event.data["from"], event.data["to"]) == ("excluded", "evidence")


def test_a_threshold_change_is_recorded_with_who_and_why(ingested, admin_user):
    threshold_change(kind="skill", value=0.9, reason="fewer false positives", actor=admin_user)
    change = ThresholdChange.objects.get()
    assert (change.kind, change.old, change.new, change.actor) == ("skill", 0.8, 0.9, admin_user)
    assert change.reason == "fewer false positives"
    event = Event.objects.get(type=Event.Type.THRESHOLD_CHANGED)
    assert event.data == {"old": 0.8, "new": 0.9, "reason": "fewer false positives", "moved": 0}
    assert KindPolicy.objects.get(kind="skill").threshold == 0.9


def test_a_threshold_below_the_reporting_floor_is_refused(ingested):
    with pytest.raises(ThresholdBelowFloor, match="refilter"):
        threshold_change(kind="skill", value=0.1, reason="too low")
    assert not ThresholdChange.objects.exists()


@pytest.mark.parametrize("value, reason", [(1.5, "x"), (-1, "x"), (0.5, "  ")])
def test_a_threshold_out_of_range_or_without_reason_is_refused(ingested, value, reason):
    with pytest.raises(InputError):
        threshold_change(kind="skill", value=value, reason=reason)


def test_a_threshold_change_agrees_with_checking_the_text_again(ingested):
    overlap = ingested["near-miss"].best_overlap
    threshold_change(kind="skill", value=overlap - 0.01, reason="catch the near miss")
    threshold_change(kind="skill", value=0.8, reason="back")
    assert derived_verify().offenders == []
    assert status("near-miss") == "evidence" and status("copy") == "excluded"


def test_a_reviewers_verdict_outranks_a_threshold_change(ingested, admin_user):
    review_record(record=ingested["copy"], verdict="confirmed", actor=admin_user)
    result = threshold_change(kind="skill", value=1.0, reason="test")
    assert result.kept_by_review == 1
    record = Record.objects.get(external_id="copy")
    assert record.status == "excluded" and not record.derived


def test_refilter_finds_copies_of_artifacts_added_after_ingest(make_artifact, tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"id": "late", "text": demo_skill("incident-review")}) + "\n")
    records_ingest(paths=[path])
    assert status("late") == "evidence"
    make_artifact(name="incident-review")
    result = records_refilter()
    assert (result.checked, result.excluded) == (1, 1)
    assert status("late") == "excluded"
    assert Event.objects.get(type=Event.Type.DERIVED_EXCLUDED).data["cause"] == "refilter"
    again = records_refilter()
    assert (again.excluded, again.released) == (0, 0)
    assert Match.objects.count() == 1


def test_refilter_never_overrides_a_reviewers_verdict(make_artifact, tmp_path, admin_user):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"id": "late", "text": demo_skill("incident-review")}) + "\n")
    records_ingest(paths=[path])
    review_record(
        record=Record.objects.get(), verdict="false_positive", actor=admin_user, note="ours"
    )
    make_artifact(name="incident-review")
    result = records_refilter()
    assert result.kept_by_review == 1 and result.excluded == 0
    record = Record.objects.get()
    assert record.status == "evidence" and record.derived


def test_refilter_of_one_kind_keeps_the_other_kinds_matches(make_artifact, tmp_path):
    reference = (DEMO_DATA / "artifacts" / "reference" / "django-bulk-create.md").read_text()
    path = tmp_path / "r.jsonl"
    rows = [
        {"id": "skill", "text": demo_skill("incident-review")},
        {"id": "ref", "text": reference},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    make_artifact(kind="reference", name="django-bulk-create", text=reference)
    records_ingest(paths=[path])
    make_artifact(name="incident-review")
    result = records_refilter(kind="skill")
    assert result.excluded == 1
    assert status("skill") == "excluded" and status("ref") == "excluded"
    assert Match.objects.filter(artifact__kind="reference").count() == 1


def test_verify_passes_after_a_filtered_ingest_and_fails_after_an_unfiltered_one(
    make_artifact, tmp_path
):
    make_artifact(name="release-notes")
    filtered = tmp_path / "a.jsonl"
    filtered.write_text(json.dumps({"id": "a", "text": demo_skill("release-notes")}) + "\n")
    records_ingest(paths=[filtered])
    assert derived_verify().offenders == []
    unfiltered = tmp_path / "b.jsonl"
    unfiltered.write_text(json.dumps({"id": "b", "text": demo_skill("release-notes")}) + "\n")
    records_ingest(paths=[unfiltered], filtered=False)
    [offender] = derived_verify().offenders
    assert (offender.external_id, offender.artifact, offender.kind) == (
        "b",
        "release-notes",
        "skill",
    )


def test_verify_counts_a_reviewers_release_apart(ingested, admin_user):
    review_record(record=ingested["copy"], verdict="false_positive", actor=admin_user)
    result = derived_verify()
    assert result.offenders == [] and result.released_by_review == 1


def test_reviews_are_events_and_undo_restores_the_filters_decision(ingested, admin_user):
    copy = ingested["copy"]
    review_record(record=copy, verdict="false_positive", actor=admin_user, note="a quote")
    assert status("copy") == "evidence"
    review_undo(record=copy, actor=admin_user)
    assert status("copy") == "excluded"
    types = list(Event.objects.filter(record=copy).order_by("id").values_list("type", flat=True))
    assert types == ["derived_excluded", "review_false_positive", "review_undone"]
    with pytest.raises(InputError):
        review_undo(record=copy, actor=admin_user)


def test_undoing_a_mis_keyed_verdict_restores_the_verdict_it_replaced(ingested, admin_user):
    copy = ingested["copy"]
    released = review_record(record=copy, verdict="false_positive", actor=admin_user)
    review_record(record=copy, verdict="confirmed", actor=admin_user)  # the mis-key
    assert status("copy") == "excluded"

    review_undo(record=copy, actor=admin_user)

    copy.refresh_from_db()
    assert copy.review == released and status("copy") == "evidence"
    undone = Event.objects.filter(record=copy, type="review_undone").get()
    assert undone.data["restored"] == {"verdict": "false_positive", "review": released.pk}
    # Undo again: now the filter's own decision holds, and then there is nothing left to undo.
    review_undo(record=copy, actor=admin_user)
    copy.refresh_from_db()
    assert copy.review is None and status("copy") == "excluded"
    with pytest.raises(InputError):
        review_undo(record=copy, actor=admin_user)


def test_a_verdict_that_does_not_fit_the_record_is_refused(ingested, admin_user):
    with pytest.raises(InputError, match="matches no artifact"):
        review_record(record=ingested["unrelated"], verdict="false_negative", actor=admin_user)
    with pytest.raises(InputError, match="never excluded"):
        review_record(record=ingested["unrelated"], verdict="confirmed", actor=admin_user)
    assert not Review.objects.exists()
    assert status("unrelated") == "evidence"


def test_a_false_negative_verdict_excludes_a_near_miss(ingested, admin_user):
    review_record(record=ingested["near-miss"], verdict="false_negative", actor=admin_user)
    assert status("near-miss") == "excluded"


def test_bulk_verdicts_apply_to_every_record_of_a_queryset(ingested, admin_user):
    event = reviews_bulk(records=Record.objects.all(), verdict="false_positive", actor=admin_user)
    assert event.data["count"] == 3
    assert set(Record.objects.values_list("status", flat=True)) == {"evidence"}


def test_a_bulk_verdict_that_does_not_fit_one_record_judges_none(ingested, admin_user):
    evidence = Record.objects.filter(status="evidence")  # the near miss and the unrelated note
    with pytest.raises(InputError, match=f"#{ingested['unrelated'].pk}: .*matches no artifact"):
        reviews_bulk(records=evidence, verdict="false_negative", actor=admin_user)
    assert not Review.objects.exists() and status("near-miss") == "evidence"


def test_an_unknown_verdict_is_refused(ingested, admin_user):
    with pytest.raises(InputError):
        review_record(record=ingested["copy"], verdict="maybe", actor=admin_user)


def test_refilter_of_one_kind_excludes_a_record_stitched_from_two_skills(make_artifact, tmp_path):
    first, second = demo_skill("release-notes"), demo_skill("incident-review")
    stitched = first[: len(first) // 2] + "\n\n" + second[len(second) // 2 :]
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"id": "stitched", "text": stitched}) + "\n")
    records_ingest(paths=[path])
    make_artifact(name="release-notes")
    make_artifact(name="incident-review")
    assert records_refilter(kind="skill").excluded == 1
    record = Record.objects.get()
    assert record.derived and record.best_overlap < 0.8
    assert record.coverage["skill"]["coverage"] > 0.8
    assert derived_verify().offenders == []
    threshold_change(kind="skill", value=1.0, reason="nothing is a copy")
    assert status("stitched") == "evidence"


def test_verify_names_a_record_stitched_from_two_skills(make_artifact, tmp_path):
    first, second = demo_skill("release-notes"), demo_skill("incident-review")
    stitched = first[: len(first) // 2] + "\n\n" + second[len(second) // 2 :]
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"id": "stitched", "text": stitched}) + "\n")
    make_artifact(name="release-notes")
    make_artifact(name="incident-review")
    records_ingest(paths=[path], filtered=False)
    [offender] = derived_verify().offenders
    assert offender.kind == "skill" and offender.overlap > 0.8
    assert offender.artifact in {"release-notes", "incident-review"}
