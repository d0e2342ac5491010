"""Bulk verdicts as one unit: one event listing the records, one undo that gives each record
back the verdict the bulk replaced, and leaves alone a record judged again since."""

import pytest

from poimen.models import Event, Record, Review
from poimen.services import (
    InputError,
    review_record,
    review_undo,
    reviews_bulk,
    reviews_bulk_undo,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def copies(make_artifact, make_record):
    artifact = make_artifact(name="release-notes")
    return [
        make_record(
            text=f"copy {n}",
            status="excluded",
            derived=True,
            best_overlap=0.9,
            best_artifact=artifact,
        )
        for n in range(4)
    ]


def test_the_undo_restores_each_records_previous_verdict(copies, admin_user):
    first, second, third, fourth = copies
    earlier = review_record(record=first, verdict="confirmed", actor=admin_user)
    bulk = reviews_bulk(
        records=Record.objects.all(),
        verdict="false_positive",
        actor=admin_user,
        filters_described="kind skill",
    )
    assert set(Record.objects.values_list("status", flat=True)) == {"evidence"}
    review_record(record=second, verdict="confirmed", actor=admin_user)  # judged again since

    undo = reviews_bulk_undo(event=bulk, actor=admin_user)

    states = {r.pk: (r.status, r.review_id) for r in Record.objects.all()}
    assert states[first.pk] == ("excluded", earlier.pk)
    assert states[second.pk][0] == "excluded" and states[second.pk][1] != earlier.pk
    assert states[third.pk] == ("excluded", None) and states[fourth.pk] == ("excluded", None)
    assert undo.data["kept"] == 1 and sorted(undo.data["records"]) == sorted(
        [first.pk, third.pk, fourth.pk]
    )
    assert Event.objects.filter(type__startswith="review_bulk").count() == 2
    with pytest.raises(InputError, match="undone already"):
        reviews_bulk_undo(event=bulk, actor=admin_user)


def test_an_undone_bulk_never_comes_back_through_a_later_undo(copies, admin_user):
    record = copies[0]
    bulk = reviews_bulk(
        records=Record.objects.filter(pk=record.pk), verdict="false_positive", actor=admin_user
    )
    later = review_record(record=record, verdict="confirmed", actor=admin_user)
    reviews_bulk_undo(event=bulk, actor=admin_user)
    review_undo(record=record, actor=admin_user)  # withdraws `later`: the filter holds again
    record.refresh_from_db()
    assert record.review_id is None and record.status == "excluded"
    assert Review.objects.get(pk=later.pk).withdrawn_at is not None


def test_only_a_bulk_event_is_undone_as_a_bulk(copies, admin_user):
    event = Event.objects.log(Event.Type.THRESHOLD_CHANGED, data={})
    with pytest.raises(InputError, match="not a bulk verdict"):
        reviews_bulk_undo(event=event, actor=admin_user)


def test_a_bulk_names_each_colleague_verdict_it_overrides(copies, admin_user, make_reviewer):
    sam = make_reviewer("sam")
    first, second, third, _ = copies
    review_record(record=first, verdict="confirmed", actor=sam)
    review_record(record=second, verdict="confirmed", actor=sam)
    review_record(record=third, verdict="confirmed", actor=admin_user)  # one's own: no override
    bulk = reviews_bulk(
        records=Record.objects.all(),
        verdict="false_positive",
        actor=admin_user,
        overrides_expected=2,
    )
    assert bulk.data["overrides"] == "2 colleague verdicts: sam's confirmed (2)"
    assert set(bulk.data["overridden"]) == {str(first.pk), str(second.pk)}
    assert bulk.data["overridden"][str(first.pk)]["reviewer"] == "sam"
    assert "overriding: 2 colleague verdicts" in bulk.describe()


def test_a_bulk_whose_colleague_verdicts_moved_judges_nothing(copies, admin_user, make_reviewer):
    sam = make_reviewer("sam")
    review_record(record=copies[0], verdict="confirmed", actor=sam)
    with pytest.raises(InputError, match="1 of these records now carry"):
        reviews_bulk(
            records=Record.objects.all(),
            verdict="false_positive",
            actor=admin_user,
            overrides_expected=0,
        )
    assert not Review.objects.filter(reviewer=admin_user).exists()
    assert not Event.objects.filter(type="review_bulk").exists()
