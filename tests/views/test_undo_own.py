"""Undo is of one's own verdicts (poimen.team.verdicts.undo_refusal, which the review service
enforces): a colleague's verdict in force is shown with who gave it and when, has no undo, and
is changed only by a new verdict, which its event records as overriding theirs."""

import pytest
from django.urls import reverse

from poimen import selectors
from poimen.models import Event, Record
from poimen.services import InputError, review_record, review_undo

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def otto(make_reviewer):
    return make_reviewer("otto")


def in_force(record: Record):
    return Record.objects.select_related("review__reviewer").get(pk=record.pk).review


def test_the_record_page_offers_no_undo_of_a_colleagues_verdict(logged_in, desk_data, otto):
    record = desk_data["verbatim"]
    theirs = review_record(record=record, verdict="confirmed", actor=otto)
    html = logged_in.get(reverse("record", args=[record.pk])).content.decode()
    assert "Verdict in force" in html and "by otto" in html
    assert "Undo this verdict" not in html and "data-colleague-verdict" in html
    assert "recorded as overriding theirs" in html
    # Nor does u find it: the page's only undo is of the reviewer's own last verdict, if any.
    assert 'data-shortcut="u"' not in html
    assert in_force(record) == theirs


def test_a_list_row_offers_undo_of_ones_own_verdict_only(logged_in, desk_data, otto, reviewer):
    theirs_record, mine_record = desk_data["verbatim"], desk_data["script"]
    review_record(record=theirs_record, verdict="confirmed", actor=otto)
    review_record(record=mine_record, verdict="confirmed", actor=reviewer)
    html = logged_in.get(reverse("exclusions")).content.decode()

    def row(record):
        start = html.index(f'id="row-{record.pk}"')
        return html[start : html.index("</tr>", start)]

    assert f'action="/rows/exclusions/{mine_record.pk}/undo/"' in row(mine_record)
    assert "/undo/" not in row(theirs_record) and "otto" in row(theirs_record)
    # What u shows there instead (desk.js unhides it), in verdicts.undo_refusal's words.
    assert "data-undo-refusal hidden" in row(theirs_record)
    assert "you can undo only your own verdicts" in row(theirs_record)
    assert "data-undo-refusal" not in row(mine_record)


def test_an_undo_of_a_colleagues_verdict_is_refused_wherever_it_is_posted(
    logged_in, desk_data, otto
):
    record = desk_data["verbatim"]
    theirs = review_record(record=record, verdict="confirmed", actor=otto)
    seen = {"seen": theirs.pk}
    page = logged_in.post(
        reverse("record_undo", args=[record.pk]), seen, follow=True
    ).content.decode()
    assert "the verdict in force is otto&#x27;s" in page and "only your own" in page
    # From a list row (htmx): told in the row, which still shows otto's verdict.
    row = logged_in.post(reverse("row_undo", args=["exclusions", record.pk]), {**seen}, **HTMX)
    assert row["HX-Retarget"] == f"#row-{record.pk}" and "only your own" in row.content.decode()
    assert row.status_code == 200  # ordinary use: the row offers the undo (lists' template)
    # From the record page under htmx, and from review mode.
    slot = logged_in.post(reverse("record_undo", args=[record.pk]), seen, **HTMX)
    assert slot["HX-Retarget"] == "#refusal" and "only your own" in slot.content.decode()
    assert in_force(record) == theirs
    assert not Event.objects.filter(type="review_undone").exists()


def test_ones_own_verdict_over_a_colleagues_is_undone_and_theirs_holds_again(
    logged_in, desk_data, reviewer, otto
):
    record = desk_data["verbatim"]
    theirs = review_record(record=record, verdict="confirmed", actor=otto)
    mine = review_record(
        record=record, verdict="false_positive", actor=reviewer, seen_review_id=theirs.pk
    )
    event = Event.objects.filter(record=record, type="review_false_positive").get()
    assert event.data["overrides"]["reviewer"] == "otto"
    assert event.data["overrides"]["review"] == theirs.pk
    assert "overriding: otto's confirmed of" in event.describe()
    html = logged_in.get(reverse("record", args=[record.pk])).content.decode()
    assert "overriding otto's verdict, confirmed" in html
    assert "Undo this verdict" in html
    logged_in.post(reverse("record_undo", args=[record.pk]), {"seen": mine.pk})
    assert in_force(record) == theirs
    assert Record.objects.get(pk=record.pk).status == "excluded"


def test_a_verdict_over_ones_own_records_no_override(desk_data, reviewer):
    record = desk_data["verbatim"]
    review_record(record=record, verdict="confirmed", actor=reviewer)
    review_record(record=record, verdict="false_positive", actor=reviewer)
    event = Event.objects.filter(record=record, type="review_false_positive").get()
    assert "overrides" not in event.data


def test_the_service_withdraws_only_the_actors_own_verdict(desk_data, reviewer, otto):
    record = desk_data["verbatim"]
    from poimen.team.verdicts import undoable_by

    theirs = review_record(record=record, verdict="confirmed", actor=otto)
    assert not undoable_by(theirs, reviewer) and undoable_by(theirs, otto)
    with pytest.raises(InputError, match="only your own"):
        review_undo(record=record, actor=reviewer)
    review_undo(record=record, actor=otto)
    assert in_force(record) is None


def test_u_walks_back_past_a_verdict_a_colleague_overrode(logged_in, desk_data, reviewer, otto):
    verbatim, script = desk_data["verbatim"], desk_data["script"]
    review_record(record=verbatim, verdict="confirmed", actor=reviewer)
    mine = review_record(record=script, verdict="confirmed", actor=reviewer)
    review_record(record=script, verdict="false_positive", actor=otto, seen_review_id=mine.pk)
    # The last of rita's verdicts still in force is on verbatim: u there, never otto's.
    last = selectors.latest_own_verdict(reviewer)
    assert last.record_id == verbatim.pk
    page = logged_in.get(reverse("record", args=[script.pk]))
    assert page.context["last_verdict"].record_id == verbatim.pk
    html = page.content.decode()
    assert "Undo this verdict" not in html and "Undo that verdict" in html


def test_an_undo_in_review_mode_brings_the_record_undone_back_without_a_page_load(
    logged_in, desk_data, reviewer
):
    review_url = reverse("review") + "?list=exclusions&sort=overlap"
    first = logged_in.get(review_url)
    judged, following = first.context["record"], first.context["review_next"]
    logged_in.post(
        reverse("review_verdict", args=[judged.pk]),
        {"verdict": "confirmed", "seen": 0, "next": following},
        **HTMX,
    )
    page = logged_in.get(following)
    assert page.context["record"].pk != judged.pk
    html = page.content.decode()
    # u (your last verdict) posts by htmx and comes back to the record undone.
    form = html[html.index(f'action="/review/{judged.pk}/undo/"') :]
    form = form[: form.index("</form>")]
    assert f'hx-post="/review/{judged.pk}/undo/"' in form
    undone_url = f"{page.context['review_url']}&undone={judged.pk}"
    assert f'name="next" value="{undone_url.replace("&", "&amp;")}"' in form
    response = logged_in.post(
        reverse("review_undo", args=[judged.pk]),
        {"seen": Record.objects.get(pk=judged.pk).review_id, "next": undone_url},
        **HTMX,
    )
    assert response.status_code == 204 and "undone=" in response["HX-Location"]
    back = logged_in.get(undone_url)
    assert back.context["record"].pk == judged.pk and back.context["review_mode"]
    assert back.context["record"].review_id is None
    # Past it, the list from the top: nothing is left behind the cursor.
    assert back.context["review_next"] == page.context["review_url"]


def test_undone_names_only_a_record_of_the_list_reviewed(logged_in, desk_data):
    near = desk_data["near"]  # a near miss, not in the exclusions list
    page = logged_in.get(reverse("review") + f"?list=exclusions&undone={near.pk}")
    assert page.context["record"].pk != near.pk
