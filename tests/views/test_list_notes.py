"""A note from a list row (and the record view, and review mode), reason "other" asking for its
note at every entry point, and the reason filter on the lists, the export and in words."""

import csv
import io

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from poimen.models import Event, Record, Review
from poimen.services import NOTE_REQUIRED, review_record
from tests.factories import HTMX_MAIN

HTMX = {"HTTP_HX_REQUEST": "true"}


def note_url(record):
    return reverse("record_note", args=[record.pk])


def row_note_url(record, list_name="exclusions"):
    return reverse("row_note", args=[list_name, record.pk])


def test_a_note_from_a_list_row_swaps_the_row_and_writes_an_event(logged_in, desk_data, reviewer):
    record = desk_data["verbatim"]
    review = review_record(record=record, verdict="confirmed", actor=reviewer)
    page = logged_in.get(reverse("exclusions")).content.decode()
    assert f'action="{row_note_url(record)}"' in page and 'data-shortcut="e"' in page
    response = logged_in.post(
        row_note_url(record),
        {"note": "<b>pasted</b> on purpose", "seen": review.pk},
        **HTMX,
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith("<tr") and f'id="row-{record.pk}"' in html
    # Escaped where it is shown, never markup.
    assert "&lt;b&gt;pasted&lt;/b&gt; on purpose" in html and "<b>pasted" not in html
    assert "Edit note" in html
    assert Review.objects.get(pk=review.pk).note == "<b>pasted</b> on purpose"
    assert Event.objects.filter(type=Event.Type.REVIEW_NOTED, record=record).count() == 1


def test_a_note_from_the_record_view_goes_back_to_it(logged_in, desk_data, reviewer):
    record = desk_data["verbatim"]
    review = review_record(record=record, verdict="confirmed", actor=reviewer)
    page = logged_in.get(reverse("record", args=[record.pk])).content.decode()
    assert "Add a note on this verdict" in page
    back = reverse("record", args=[record.pk]) + "?list=exclusions"
    response = logged_in.post(
        note_url(record), {"note": "checked", "seen": review.pk, "next": back}
    )
    assert response.status_code == 302 and response["Location"] == back
    page = logged_in.get(back).content.decode()
    assert "“checked”" in page and "Edit the note on this verdict" in page


def test_a_note_on_the_last_verdict_in_review_mode_reloads_the_record_in_place(
    logged_in, desk_data, reviewer
):
    judged = desk_data["verbatim"]
    review = review_record(record=judged, verdict="confirmed", actor=reviewer)
    here = reverse("review") + "?list=exclusions"
    page = logged_in.get(here, **HTMX_MAIN).content.decode()
    review_note = reverse("review_note", args=[judged.pk])
    assert f"#{judged.pk}'s verdict" in page and f'hx-post="{review_note}"' in page
    response = logged_in.post(
        review_note,
        {"note": "later", "seen": review.pk, "next": here},
        **HTMX,
    )
    assert response.status_code == 204 and here in response["HX-Location"]
    assert Review.objects.get(pk=review.pk).note == "later"


def test_a_note_on_a_verdict_changed_since_shows_the_row_as_it_stands(
    logged_in, desk_data, reviewer, tuner
):
    record = desk_data["verbatim"]
    seen = review_record(record=record, verdict="confirmed", actor=reviewer)
    review_record(record=record, verdict="false_positive", reason="reuse", actor=tuner)
    response = logged_in.post(
        note_url(record), {"note": "mine", "row": "exclusions", "seen": seen.pk}, **HTMX
    )
    assert response.status_code == 200 and b"tom judged it" in response.content
    assert not Review.objects.filter(note="mine").exists()


def test_a_note_too_long_is_a_clear_400(logged_in, desk_data, reviewer):
    record = desk_data["verbatim"]
    review_record(record=record, verdict="confirmed", actor=reviewer)
    response = logged_in.post(note_url(record), {"note": "x" * 2001}, **HTMX)
    assert response.status_code == 400 and b"note:" in response.content


def test_reason_other_from_a_row_without_a_note_asks_for_it_in_the_row(logged_in, desk_data):
    record = desk_data["verbatim"]
    page = logged_in.get(reverse("exclusions")).content.decode()
    # Keys 1-3 send a reason; 4 ("other") opens a note field first.
    assert 'name="reason" value="quoted"' in page and 'data-shortcut="4"' in page
    data = {"verdict": "false_positive", "reason": "other", "seen": 0}
    url = reverse("row_review", args=["exclusions", record.pk])
    response = logged_in.post(url, data, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith("<tr") and NOTE_REQUIRED in html
    assert '<details class="row-other" open>' in html and "autofocus" in html
    assert not Review.objects.exists()
    data["note"] = "an example in our own docs"
    response = logged_in.post(url, data, **HTMX)
    assert response.status_code == 200 and NOTE_REQUIRED not in response.content.decode()
    review = Review.objects.get()
    assert (review.reason, review.note) == ("other", "an example in our own docs")


def test_reason_other_from_the_record_view_without_a_note_is_a_form_error(logged_in, desk_data):
    record = desk_data["verbatim"]
    following = reverse("record", args=[desk_data["script"].pk]) + "?list=exclusions"
    response = logged_in.post(
        reverse("record_review", args=[record.pk]),
        {"verdict": "false_positive", "reason": "other", "note": " ", "seen": 0, "next": following},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert NOTE_REQUIRED in html and 'aria-invalid="true"' in html
    assert f'name="next" value="{following}"' in html and 'value="other"' in html
    assert not Review.objects.exists()


def test_reason_other_in_review_mode_without_a_note_asks_in_place(logged_in, desk_data):
    record = desk_data["verbatim"]
    response = logged_in.post(
        reverse("review_verdict", args=[record.pk]),
        {"verdict": "false_positive", "reason": "other", "next": "/review/"},
        **HTMX,
    )
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#verdict-form" and response["HX-Reswap"] == "innerHTML"
    html = response.content.decode()
    assert (
        NOTE_REQUIRED in html and f'hx-post="{reverse("review_verdict", args=[record.pk])}"' in html
    )
    assert not Review.objects.exists()


def test_a_reader_sees_no_note_controls_and_gets_403_on_a_note(client, desk_data, reviewer):
    record = desk_data["verbatim"]
    review = review_record(record=record, verdict="confirmed", note="kept", actor=reviewer)
    reader = User.objects.create_user("rea", password="only-reads-things")
    client.force_login(reader)
    page = client.get(reverse("exclusions")).content.decode()
    assert "“kept”" in page  # the note is read
    assert note_url(record) not in page and 'data-shortcut="e"' not in page
    assert 'data-shortcut="4"' not in page
    record_page = client.get(reverse("record", args=[record.pk])).content.decode()
    assert note_url(record) not in record_page
    for headers in ({}, HTMX):
        response = client.post(note_url(record), {"note": "mine", "seen": review.pk}, **headers)
        assert response.status_code == 403
    assert Review.objects.get().note == "kept"


def released(desk_data, reviewer):
    verbatim, script = desk_data["verbatim"], desk_data["script"]
    review_record(record=verbatim, verdict="false_positive", reason="quoted", actor=reviewer)
    review_record(
        record=script, verdict="false_positive", reason="other", note="ours", actor=reviewer
    )
    return verbatim, script


def test_the_reason_filter_lists_the_released_for_that_reason(logged_in, desk_data, reviewer):
    verbatim, script = released(desk_data, reviewer)
    html = logged_in.get(reverse("exclusions") + "?reason=other").content.decode()
    assert f'id="row-{script.pk}"' in html and f'id="row-{verbatim.pk}"' not in html
    # The fragment htmx swaps in holds the same rows.
    fragment = logged_in.get(
        reverse("exclusions") + "?reason=quoted", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="results"
    ).content.decode()
    assert f'id="row-{verbatim.pk}"' in fragment and f'id="row-{script.pk}"' not in fragment
    assert "<html" not in fragment
    # The reasons offered are Review.Reason's, all of them.
    plain = logged_in.get(reverse("exclusions")).content.decode()
    for value, label in Review.Reason.choices:
        assert f'<option value="{value}">{label}</option>' in plain


def test_a_reason_with_another_verdict_is_a_form_error_and_ignored(logged_in, desk_data, reviewer):
    released(desk_data, reviewer)
    html = logged_in.get(reverse("exclusions") + "?reason=other&verdict=confirmed").content
    assert b"only a false positive has a reason" in html
    assert logged_in.get(reverse("exclusions") + "?reason=nonsense").status_code == 200


def test_the_reason_filter_in_words_on_the_export_and_bulk_pages(logged_in, desk_data, reviewer):
    verbatim, script = released(desk_data, reviewer)
    export = logged_in.get(reverse("export") + "?list=exclusions&reason=other").content.decode()
    assert "released as false positive because other (see the note)" in export
    bulk = logged_in.get(reverse("exclusions_bulk") + "?reason=quoted").content.decode()
    assert "released as false positive because quoted in a discussion" in bulk
    download = logged_in.get(reverse("export") + "?list=exclusions&reason=other&download=1")
    rows = list(csv.DictReader(io.StringIO(b"".join(download.streaming_content).decode())))
    assert [row["record_pk"] for row in rows] == [str(script.pk)]
    assert rows[0]["reason"] == "other" and rows[0]["note"] == "ours"


def test_the_reason_filter_travels_to_the_record_and_review_mode(logged_in, desk_data, reviewer):
    verbatim, script = released(desk_data, reviewer)
    html = logged_in.get(reverse("exclusions") + "?reason=other").content.decode()
    assert f"/records/{script.pk}/?list=exclusions&amp;reason=other" in html
    assert "/review/?list=exclusions&amp;reason=other" in html


@pytest.fixture
def noted(desk_data, make_record, reviewer):
    artifact = desk_data["verbatim"].best_artifact
    for n in range(20):
        record = make_record(
            text=f"copy {n}",
            status="excluded",
            derived=True,
            best_overlap=0.9,
            best_artifact=artifact,
        )
        review_record(
            record=record, verdict="false_positive", reason="other", note=f"n{n}", actor=reviewer
        )


@pytest.mark.parametrize(
    "url", ["/exclusions/?reason=other", "/exclusions/?verdict=false_positive", "/near-misses/"]
)
def test_lists_with_notes_reasons_and_saved_filters_stay_bounded(
    logged_in, noted, reviewer, django_assert_max_num_queries, url
):
    from poimen.services import saved_filter_save

    for n in range(5):
        saved_filter_save(user=reviewer, list_name="exclusions", name=f"s{n}", query="kind=skill")
        saved_filter_save(user=reviewer, list_name="near_misses", name=f"s{n}", query="")
    logged_in.get(url)
    with django_assert_max_num_queries(18):
        logged_in.get(url)
    with django_assert_max_num_queries(14):
        logged_in.get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="results")


def test_rows_count_once_however_many_notes(logged_in, noted, django_assert_num_queries):
    """The same number of queries for 20 noted rows as for 1: no query per row."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    logged_in.get("/exclusions/?reason=other")
    with CaptureQueriesContext(connection) as many:
        logged_in.get("/exclusions/?reason=other")
    Record.objects.filter(review__note__in=[f"n{n}" for n in range(1, 20)]).update(review=None)
    with CaptureQueriesContext(connection) as one:
        logged_in.get("/exclusions/?reason=other")
    assert len(many) == len(one)


@pytest.mark.parametrize("htmx", [False, True])
def test_the_note_and_saved_filter_posts_need_the_csrf_token(reviewer, desk_data, htmx):
    from django.test import Client

    from poimen.services import saved_filter_save

    client = Client(enforce_csrf_checks=True)
    client.force_login(reviewer)
    record = desk_data["verbatim"]
    review = review_record(record=record, verdict="confirmed", actor=reviewer)
    saved = saved_filter_save(user=reviewer, list_name="exclusions", name="a", query="")
    headers = HTMX if htmx else {}
    posts = [
        (note_url(record), {"note": "x", "seen": review.pk}),
        (reverse("saved_filter_save"), {"list": "exclusions", "name": "b", "query": ""}),
        (reverse("saved_filter_rename", args=[saved.pk]), {"name": "c"}),
        (reverse("saved_filter_delete", args=[saved.pk]), {}),
    ]
    for url, data in posts:
        assert client.post(url, data, **headers).status_code == 403, url
    assert Review.objects.get().note == "" and saved.__class__.objects.get().name == "a"
