"""Verdicts from the desk: each one and its undo, from a list row (htmx) and from the record
view, bulk verdicts with their confirmation, and CSRF on every POST."""

import pytest
from django.test import Client
from django.urls import reverse

from poimen.models import Event, Record, Review
from poimen.views import lists

HTMX = {"HTTP_HX_REQUEST": "true"}


def refreshed(record: Record) -> Record:
    return Record.objects.select_related("review").get(pk=record.pk)


def test_confirm_keeps_the_record_excluded_and_writes_an_event(logged_in, desk_data, reviewer):
    record = desk_data["verbatim"]
    response = logged_in.post(
        reverse("record_review", args=[record.pk]),
        {"verdict": "confirmed", "note": "a verbatim copy"},
    )
    assert response.status_code == 302
    record = refreshed(record)
    assert record.status == "excluded"
    assert record.review.verdict == "confirmed" and record.review.note == "a verbatim copy"
    event = Event.objects.filter(record=record).order_by("-id").first()
    assert event.type == "review_confirmed" and event.actor == reviewer
    assert event.data["note"] == "a verbatim copy"


def test_false_positive_releases_the_record_to_evidence(logged_in, desk_data):
    record = desk_data["verbatim"]
    logged_in.post(reverse("record_review", args=[record.pk]), {"verdict": "false_positive"})
    record = refreshed(record)
    assert record.status == "evidence" and record.review.verdict == "false_positive"
    assert Event.objects.filter(record=record, type="review_false_positive").exists()


def test_false_negative_excludes_a_near_miss(logged_in, desk_data):
    record = desk_data["near"]
    logged_in.post(reverse("record_review", args=[record.pk]), {"verdict": "false_negative"})
    record = refreshed(record)
    assert record.status == "excluded" and record.review.verdict == "false_negative"
    assert Event.objects.filter(record=record, type="review_false_negative").exists()


def test_a_record_without_matches_has_no_verdict_panel(logged_in, desk_data):
    record = desk_data["unrelated"]
    html = logged_in.get(reverse("record", args=[record.pk])).content.decode()
    assert 'aria-label="Verdict"' not in html and "Note (optional)" not in html
    assert 'data-shortcut="n"' not in html


def test_false_negative_on_a_record_without_matches_is_refused(logged_in, desk_data):
    record = desk_data["unrelated"]
    response = logged_in.post(
        reverse("record_review", args=[record.pk]), {"verdict": "false_negative"}
    )
    assert response.status_code == 302
    assert refreshed(record).review is None and refreshed(record).status == "evidence"
    htmx = logged_in.post(
        reverse("record_review", args=[record.pk]), {"verdict": "false_negative"}, **HTMX
    )
    assert htmx.status_code == 400 and b"matches no artifact" in htmx.content
    assert not Review.objects.exists()


def test_undo_stays_offered_on_a_record_without_matches(logged_in, desk_data):
    judged, plain = desk_data["verbatim"], desk_data["unrelated"]
    logged_in.post(
        reverse("record_review", args=[judged.pk]),
        {"verdict": "confirmed", "next": reverse("record", args=[plain.pk])},
    )
    html = logged_in.get(reverse("record", args=[plain.pk])).content.decode()
    assert "Undo that verdict" in html and "Note (optional)" not in html


@pytest.mark.parametrize(
    ("name", "verdict", "status_after_undo"),
    [
        ("verbatim", "confirmed", "excluded"),
        ("verbatim", "false_positive", "excluded"),
        ("near", "false_negative", "evidence"),
    ],
)
def test_undo_withdraws_each_verdict_and_writes_an_event(
    logged_in, desk_data, name, verdict, status_after_undo
):
    record = desk_data[name]
    logged_in.post(reverse("record_review", args=[record.pk]), {"verdict": verdict})
    response = logged_in.post(reverse("record_undo", args=[record.pk]))
    assert response.status_code == 302
    record = refreshed(record)
    assert record.review is None and record.status == status_after_undo
    assert Event.objects.filter(record=record, type="review_undone").count() == 1
    assert Review.objects.filter(record=record).count() == 1  # the withdrawn review is kept


def test_undo_without_a_verdict_is_refused_with_a_message(logged_in, desk_data):
    record = desk_data["verbatim"]
    response = logged_in.post(reverse("record_undo", args=[record.pk]), follow=True)
    assert b"no review to undo" in response.content
    htmx = logged_in.post(reverse("record_undo", args=[record.pk]), **HTMX)
    assert htmx.status_code == 400


def test_verdict_from_the_record_view_moves_on_to_next(logged_in, desk_data):
    record, following = desk_data["verbatim"], desk_data["script"]
    next_url = reverse("record", args=[following.pk]) + "?list=exclusions"
    response = logged_in.post(
        reverse("record_review", args=[record.pk]), {"verdict": "confirmed", "next": next_url}
    )
    assert response["Location"] == next_url


def test_next_must_stay_on_this_site(logged_in, desk_data):
    record = desk_data["verbatim"]
    response = logged_in.post(
        reverse("record_review", args=[record.pk]),
        {"verdict": "confirmed", "next": "https://evil.example/"},
    )
    assert response["Location"] == reverse("record", args=[record.pk])


def test_verdict_from_a_list_row_returns_the_row(logged_in, desk_data):
    record = desk_data["verbatim"]
    response = logged_in.post(
        reverse("row_review", args=["exclusions", record.pk]),
        {"verdict": "false_positive"},
        **HTMX,
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert html.strip().startswith(f'<tr data-row id="row-{record.pk}"')
    assert "false positive" in html and 'data-shortcut="u"' in html
    undone = logged_in.post(
        reverse("row_undo", args=["exclusions", record.pk]), {}, **HTMX
    ).content.decode()
    assert 'data-shortcut="c"' in undone and 'data-shortcut="u"' not in undone


def test_near_miss_row_offers_false_negative(logged_in, desk_data):
    record = desk_data["near"]
    response = logged_in.post(
        reverse("row_review", args=["near_misses", record.pk]),
        {"verdict": "false_negative"},
        **HTMX,
    )
    assert b"false negative" in response.content
    assert refreshed(record).status == "excluded"


def test_an_unknown_verdict_is_a_bad_request(logged_in, desk_data):
    record = desk_data["verbatim"]
    response = logged_in.post(reverse("record_review", args=[record.pk]), {"verdict": "meh"})
    assert response.status_code == 400
    assert refreshed(record).review is None


def test_verdicts_need_a_post(logged_in, desk_data):
    record = desk_data["verbatim"]
    assert logged_in.get(reverse("record_review", args=[record.pk])).status_code == 405
    assert logged_in.get(reverse("record_undo", args=[record.pk])).status_code == 405


@pytest.mark.parametrize("htmx", [False, True])
def test_every_post_needs_the_csrf_token(reviewer, desk_data, htmx):
    client = Client(enforce_csrf_checks=True)
    client.force_login(reviewer)
    headers = HTMX if htmx else {}
    record = desk_data["verbatim"]
    posts = [
        (reverse("record_review", args=[record.pk]), {"verdict": "confirmed"}),
        (reverse("record_undo", args=[record.pk]), {}),
        (reverse("exclusions_bulk"), {"verdict": "confirmed", "expected": 2}),
        (reverse("logout"), {}),
    ]
    for url, data in posts:
        assert client.post(url, data, **headers).status_code == 403, url
    assert refreshed(record).review is None


def test_the_htmx_csrf_header_is_accepted(reviewer, desk_data):
    client = Client(enforce_csrf_checks=True)
    client.force_login(reviewer)
    page = client.get(reverse("exclusions"))
    token = page.context["csrf_token"]
    record = desk_data["verbatim"]
    response = client.post(
        reverse("row_review", args=["exclusions", record.pk]),
        {"verdict": "confirmed"},
        HTTP_X_CSRFTOKEN=str(token),
        **HTMX,
    )
    assert response.status_code == 200
    assert refreshed(record).review.verdict == "confirmed"


def test_bulk_verdict_asks_first_saying_how_many(logged_in, desk_data):
    response = logged_in.get(reverse("exclusions_bulk") + "?kind=skill")
    assert response.status_code == 200
    assert response.context["count"] == 2
    assert b"2 records" in response.content
    assert not Review.objects.exists()


def test_bulk_verdict_applies_to_the_whole_filtered_set(logged_in, desk_data, reviewer):
    url = reverse("exclusions_bulk") + "?kind=skill&verdict=unreviewed"
    response = logged_in.post(url, {"verdict": "confirmed", "expected": 2, "note": "all copies"})
    assert response.status_code == 302
    assert "kind=skill" in response["Location"]
    reviewed = Record.objects.filter(review__verdict="confirmed")
    assert {r.external_id for r in reviewed} == {"verbatim", "script"}
    # One event for the bulk, listing its records and saying which filters chose them.
    event = Event.objects.get(type="review_bulk", actor=reviewer)
    assert sorted(event.data["records"]) == sorted(r.pk for r in reviewed)
    assert event.data["filters"] == "kind skill · verdict not reviewed"
    assert not Event.objects.filter(type="review_confirmed").exists()


def test_bulk_verdict_is_confirmed_with_its_filters_in_words(logged_in, desk_data):
    url = reverse("exclusions_bulk") + "?kind=skill&overlap_min=0.5&q=release"
    html = logged_in.get(url).content.decode()
    assert "text containing “release” · kind skill · overlap at least 0.5" in html


def test_a_bulk_verdict_is_undone_as_one_unit_from_the_list(logged_in, desk_data, reviewer):
    url = reverse("exclusions_bulk") + "?kind=skill"
    logged_in.post(url, {"verdict": "false_positive", "expected": 2})
    assert Record.objects.filter(status="evidence").count() == 4
    listing = logged_in.get(reverse("exclusions") + "?kind=skill&verdict=false_positive")
    bulk = listing.context["last_bulk"]
    assert b"Undo all 2" in listing.content
    response = logged_in.post(
        reverse("exclusions_bulk_undo", args=[bulk.pk]), {"next": reverse("exclusions")}
    )
    assert response.status_code == 302
    assert {desk_data[n].pk for n in ("verbatim", "script")} == set(
        Record.objects.filter(status="excluded", review=None).values_list("pk", flat=True)
    )
    undo = Event.objects.get(type="review_bulk_undone")
    assert undo.data["bulk"] == bulk.pk and sorted(undo.data["records"]) == sorted(
        bulk.data["records"]
    )
    assert b"Undo all" not in logged_in.get(reverse("exclusions")).content
    # Both events are in each record's history and in the audit log, which offers no undo now.
    record_page = logged_in.get(reverse("record", args=[desk_data["verbatim"].pk]))
    assert {"review_bulk", "review_bulk_undone"} <= {e.type for e in record_page.context["events"]}
    assert b"Undo all" not in logged_in.get(reverse("audit")).content


def test_bulk_verdict_asks_again_when_the_set_changed(logged_in, desk_data):
    url = reverse("exclusions_bulk") + "?kind=skill"
    response = logged_in.post(url, {"verdict": "false_positive", "expected": 5})
    assert response.status_code == 200
    assert b"changed while you were deciding" in response.content
    assert not Review.objects.exists()


def test_bulk_verdict_refuses_a_verdict_it_does_not_offer(logged_in, desk_data):
    url = reverse("exclusions_bulk")
    response = logged_in.post(url, {"verdict": "false_negative", "expected": 2})
    assert response.status_code == 400
    assert not Review.objects.exists()


def test_a_user_without_the_review_permission_reads_but_cannot_judge(client, desk_data):
    from django.contrib.auth.models import User

    reader = User.objects.create_user("rea", password="only-reads-things")
    client.force_login(reader)
    record = desk_data["verbatim"]
    page = client.get(reverse("exclusions"))
    assert page.status_code == 200 and b'data-shortcut="c"' not in page.content
    assert b"Confirm exclusion" not in client.get(reverse("record", args=[record.pk])).content
    posts = [
        (reverse("record_review", args=[record.pk]), {"verdict": "confirmed"}),
        (reverse("record_undo", args=[record.pk]), {}),
        (reverse("exclusions_bulk"), {"verdict": "confirmed", "expected": 2}),
    ]
    for url, data in posts:
        assert client.post(url, data).status_code == 403, url
    assert client.get(reverse("exclusions_bulk")).status_code == 403
    assert refreshed(record).review is None


def test_a_reader_sees_no_judge_column_no_verdict_keys_and_no_invitation(client, desk_data):
    from django.contrib.auth.models import User

    client.force_login(User.objects.create_user("rea", password="only-reads-things"))
    for name in ("exclusions", "near_misses"):
        html = client.get(reverse(name)).content.decode()
        assert 'class="judge-cell"' not in html, name
        assert "<kbd>c</kbd> confirm" not in html and "<kbd>u</kbd> undo" not in html, name
        assert "<kbd>n</kbd> false negative" not in html, name
        assert "<kbd>c</kbd></td>" not in html and "<kbd>u</kbd></td>" not in html, name
        assert "<kbd>Enter</kbd> open" in html, name
    assert b"Judge them here" not in client.get(reverse("exclusions")).content


def test_a_reviewer_sees_the_judge_column_and_the_verdict_keys(logged_in, desk_data):
    html = logged_in.get(reverse("exclusions")).content.decode()
    assert '<th class="judge-cell">Judge</th>' in html and "<kbd>c</kbd> confirm" in html
    assert "<kbd>c</kbd></td>" in html and "Judge them here" in html


def test_bulk_verdict_over_too_many_records_asks_to_narrow_the_filters(
    logged_in, desk_data, monkeypatch
):
    monkeypatch.setattr(lists, "BULK_LIMIT", 1)
    page = logged_in.get(reverse("exclusions_bulk"))
    assert b"Narrow them" in page.content and b"Apply to" not in page.content
    response = logged_in.post(reverse("exclusions_bulk"), {"verdict": "confirmed", "expected": 2})
    assert response.status_code == 400
    assert not Review.objects.exists()


def test_the_later_of_two_racing_verdicts_is_told_and_shown_the_first(
    logged_in, desk_data, reviewer
):
    from django.contrib.auth.models import User

    record = desk_data["verbatim"]
    other = User.objects.create_user("otto")
    other.groups.add(*reviewer.groups.all())
    first = Client()
    first.force_login(other)
    # Both saw the record unreviewed; otto's verdict lands first.
    seen = {"seen": 0, "row": "exclusions"}
    first.post(reverse("record_review", args=[record.pk]), {"verdict": "confirmed", **seen})
    response = logged_in.post(
        reverse("record_review", args=[record.pk]), {"verdict": "false_positive", **seen}, **HTMX
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "otto judged it confirmed (exclusion or redaction)" in html
    assert "yours was not recorded" in html
    assert refreshed(record).review.verdict == "confirmed"
    # Without htmx, the record page says so; an undo of a verdict not seen is refused too.
    page = logged_in.post(
        reverse("record_undo", args=[record.pk]), {"seen": 0}, follow=True
    ).content.decode()
    assert "yours was not recorded" in page and refreshed(record).review.verdict == "confirmed"


def test_review_mode_is_for_reviewers_and_shows_the_next_unreviewed(logged_in, desk_data):
    from django.contrib.auth.models import User

    reader = Client()
    reader.force_login(User.objects.create_user("rea", password="only-reads-things"))
    assert reader.get(reverse("review")).status_code == 403
    assert b'data-action="review"' not in reader.get(reverse("exclusions")).content
    assert logged_in.get(reverse("review") + "?list=nowhere").status_code == 404
    first = logged_in.get(reverse("review") + "?list=exclusions&sort=overlap")
    assert first.context["record"].review_id is None and first.context["review_mode"]
    assert "0 of 2 reviewed, 2 left" in first.content.decode()
    record = first.context["record"]
    response = logged_in.post(
        reverse("review_verdict", args=[record.pk]),
        {"verdict": "confirmed", "seen": 0, "next": first.context["review_next"]},
        **HTMX,
    )
    assert response.status_code == 204 and "/review/" in response["HX-Location"]


def test_undo_walks_back_ones_own_verdicts_level_by_level(logged_in, desk_data, reviewer):
    from poimen.services import review_record

    verbatim, script, near, unrelated = (
        desk_data[n] for n in ("verbatim", "script", "near", "unrelated")
    )
    review_record(record=verbatim, verdict="confirmed", actor=reviewer)
    review_record(record=script, verdict="false_positive", actor=reviewer)
    review_record(record=near, verdict="false_negative", actor=reviewer)
    page_url = reverse("record", args=[unrelated.pk])
    for expected in (near, script, verbatim):
        offered = logged_in.get(page_url).context["last_verdict"]
        assert offered.record_id == expected.pk
        logged_in.post(
            reverse("record_undo", args=[offered.record_id]),
            {"seen": offered.pk, "next": page_url},
        )
        assert refreshed(expected).review is None
    assert logged_in.get(page_url).context["last_verdict"] is None


def test_a_false_positive_carries_its_reason_to_the_list_the_event_and_the_export(
    logged_in, desk_data
):
    record = desk_data["verbatim"]
    logged_in.post(reverse("record_review", args=[record.pk]), {"reason": "reuse", "seen": 0})
    review = refreshed(record).review
    assert (review.verdict, review.reason) == ("false_positive", "reuse")
    event = Event.objects.filter(record=record).order_by("-id").first()
    assert event.data["reason"] == "legitimate reuse"
    listing = logged_in.get(reverse("exclusions") + "?verdict=false_positive").content.decode()
    assert "false positive (release to evidence) · legitimate reuse" in listing
    download = logged_in.get(
        reverse("export"),
        {"list": "exclusions", "verdict": "false_positive", "format": "jsonl", "download": "1"},
    )
    assert b'"reason": "reuse"' in b"".join(download.streaming_content)
    refused = logged_in.post(
        reverse("record_review", args=[desk_data["script"].pk]),
        {"verdict": "confirmed", "reason": "quoted", "seen": 0},
    )
    assert refreshed(desk_data["script"]).review is None and refused.status_code == 302
