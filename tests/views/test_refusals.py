"""How the desk tells an htmx request no (views.common.htmx_refusal, the one home): where it was
asked, as the thing refused now stands, with role="alert"; a 4xx keeps its status, and names
where it goes (HX-Retarget) so that desk.js shows it; nothing is left in the session to pop up
on a later page."""

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from poimen.models import Record, Review
from poimen.services import NOTE_REQUIRED, review_record

HTMX = {"HTTP_HX_REQUEST": "true"}
REVIEW_URL = "/review/?list=exclusions&sort=overlap"
# Review mode's page, as the browser's htmx says it is on it.
IN_REVIEW_MODE = {**HTMX, "HTTP_HX_CURRENT_URL": f"http://testserver{REVIEW_URL}"}
ALERT = 'role="alert" data-refusal'


def other_reviewer(reviewer, name="otto"):
    user = User.objects.create_user(name)
    user.groups.add(*reviewer.groups.all())
    return user


def test_every_page_has_the_refusal_slot_outside_main(logged_in, desk_data):
    html = logged_in.get(reverse("exclusions")).content.decode()
    assert html.index('<div id="refusal" class="refusal-slot"></div>') < html.index("<main")


def test_a_verdict_lost_in_review_mode_shows_that_record_as_it_stands_with_the_first(
    logged_in, desk_data, reviewer
):
    page = logged_in.get(REVIEW_URL)
    record, following = page.context["record"], page.context["review_next"]
    otto = other_reviewer(reviewer)
    first = review_record(record=record, verdict="confirmed", actor=otto, seen_review_id=None)
    response = logged_in.post(
        reverse("review_verdict", args=[record.pk]),
        {"verdict": "false_positive", "seen": 0, "next": following},
        **IN_REVIEW_MODE,
    )
    # A race lost is ordinary use: 200, the record again in place of review mode's page.
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#main" and response["HX-Reswap"] == "innerHTML"
    html = response.content.decode().replace("&amp;", "&")
    assert ALERT in html and "otto judged it confirmed" in html and "not recorded" in html
    assert f"Record #{record.pk}" in html and "Verdict in force" in html
    assert "Undo this verdict" not in html  # u undoes one's own last verdict, never otto's
    assert "0 of 2 reviewed" not in html and "1 of 2 reviewed, 1 left" in html
    # A verdict now overrules otto's knowingly; skipping goes on past this record.
    assert f'name="seen" value="{first.pk}"' in html
    assert (
        f'name="next" value="{following}"' in html
        and f'action="{reverse("review_verdict", args=[record.pk])}"' in html
    )
    assert f'href="{following}"' in html
    assert Review.objects.get().reviewer == otto
    # Told once, here: the next page has no message left over.
    assert "not recorded" not in logged_in.get(REVIEW_URL).content.decode()


def test_a_note_refused_in_review_mode_is_told_on_the_page_shown(logged_in, desk_data, reviewer):
    judged = desk_data["script"]
    review = review_record(
        record=judged, verdict="false_positive", reason="other", note="why", actor=reviewer
    )
    page = logged_in.get(REVIEW_URL)
    on_screen = page.context["record"]
    assert page.context["last_verdict"] == review and on_screen != judged
    response = logged_in.post(
        reverse("review_note", args=[judged.pk]),
        {"note": " ", "seen": review.pk, "next": REVIEW_URL},
        **IN_REVIEW_MODE,
    )
    assert response.status_code == 200 and response["HX-Retarget"] == "#main"
    html = response.content.decode().replace("&amp;", "&")
    assert ALERT in html and NOTE_REQUIRED in html
    assert f"Record #{on_screen.pk}" in html
    # The forms that come back to this page go to review mode's URL, not to the note's.
    assert f'name="next" value="{REVIEW_URL}"' in html
    assert Review.objects.get(pk=review.pk).note == "why"
    assert NOTE_REQUIRED not in logged_in.get(REVIEW_URL).content.decode()


def test_a_verdict_a_row_cannot_take_is_told_in_that_row(logged_in, desk_data):
    record = desk_data["verbatim"]  # excluded: a false negative does not fit it
    response = logged_in.post(
        reverse("row_review", args=["exclusions", record.pk]),
        {"verdict": "false_negative", "seen": 0},
        **HTMX,
    )
    assert response.status_code == 400
    assert response["HX-Retarget"] == f"#row-{record.pk}"
    assert response["HX-Reswap"] == "outerHTML"
    html = response.content.decode()
    assert html.lstrip().startswith("<tr") and ALERT in html
    assert not Review.objects.exists()


def test_an_undo_of_nothing_from_htmx_is_told_in_the_refusal_slot(logged_in, desk_data):
    record = desk_data["verbatim"]
    response = logged_in.post(reverse("record_undo", args=[record.pk]), **HTMX)
    assert response.status_code == 400
    assert response["HX-Retarget"] == "#refusal" and response["HX-Reswap"] == "innerHTML"
    assert ALERT in response.content.decode() and b"no review to undo" in response.content


def test_a_form_that_does_not_parse_is_told_where_it_was_sent(logged_in, desk_data):
    record = desk_data["verbatim"]
    url = reverse("record_review", args=[record.pk])
    plain = logged_in.post(url, {"verdict": "meh"})
    assert plain.status_code == 400 and plain.content == b"That verdict is not one of the choices."
    row_url = reverse("row_review", args=["near_misses", record.pk])
    row = logged_in.post(row_url, {"verdict": "meh"}, **HTMX)
    assert row.status_code == 400 and row["HX-Retarget"] == f"#row-{record.pk}"
    assert b"That verdict is not one of the choices." in row.content


def test_a_permission_refused_to_htmx_is_told_and_the_page_keeps_its_403(client, desk_data):
    client.force_login(User.objects.create_user("rea", password="only-reads-things"))
    record = desk_data["verbatim"]
    url = reverse("record_review", args=[record.pk])
    response = client.post(url, {"verdict": "confirmed", "row": "exclusions"}, **HTMX)
    assert response.status_code == 403 and response["HX-Retarget"] == "#refusal"
    html = response.content.decode()
    assert ALERT in html and "Verdicts need the permission to review records." in html
    assert "<html" not in html
    page = client.post(url, {"verdict": "confirmed"})
    assert page.status_code == 403 and b"Not allowed" in page.content
    assert "HX-Retarget" not in page
    assert Record.objects.get(pk=record.pk).review is None


def test_a_record_gone_is_told_to_htmx_and_the_page_keeps_its_404(logged_in, desk_data):
    url = reverse("record_review", args=[999_999])
    response = logged_in.post(url, {"verdict": "confirmed", "row": "exclusions"}, **HTMX)
    assert response.status_code == 404 and response["HX-Retarget"] == "#refusal"
    assert ALERT in response.content.decode()
    # A URL that resolves to nothing says so in words, not with the patterns it tried.
    nowhere = logged_in.get("/no-such-page/", **HTMX)
    assert nowhere.status_code == 404 and b"That is not here any more." in nowhere.content
    assert "HX-Retarget" not in logged_in.get("/no-such-page/")


def test_a_post_with_a_stale_csrf_token_is_told_to_htmx_what_to_do(reviewer, desk_data):
    client = Client(enforce_csrf_checks=True)
    client.force_login(reviewer)
    record = desk_data["verbatim"]
    url = reverse("record_review", args=[record.pk])
    data = {"verdict": "confirmed", "row": "exclusions"}
    response = client.post(url, data, HTTP_X_CSRFTOKEN="a-token-from-before", **HTMX)
    assert response.status_code == 403 and response["HX-Retarget"] == "#refusal"
    assert ALERT in response.content.decode() and b"Reload it, then try again." in response.content
    page = client.post(url, data)
    assert page.status_code == 403 and "HX-Retarget" not in page
    assert Record.objects.get(pk=record.pk).review is None


def test_the_record_page_a_post_answers_sends_its_own_forms_back_to_the_record(
    logged_in, desk_data, reviewer
):
    review_record(record=desk_data["script"], verdict="confirmed", actor=reviewer)
    record = desk_data["verbatim"]
    posted = reverse("record_review", args=[record.pk])
    response = logged_in.post(
        posted, {"verdict": "false_positive", "reason": "other", "note": "", "seen": 0}
    )
    assert response.status_code == 400 and "Undo that verdict" in response.content.decode()
    html = response.content.decode()
    assert f'name="next" value="{reverse("record", args=[record.pk])}"' in html
    assert f'name="next" value="{posted}"' not in html
