"""What the desk says when htmx gets no answer it can show (a 5xx, no answer at all): the words
are base.html's, each one _refusal.html (role="alert"), for desk.js to put in the refusal slot;
and a verdict, an undo or a note whose answer failed is rolled back whole, so the alert's
"not recorded" is the truth."""

import pytest
from django.test import Client
from django.urls import reverse

from poimen.models import Event, Review

HTMX = {"HTTP_HX_REQUEST": "true"}


def test_every_page_carries_the_four_failure_alerts_inert(logged_in, desk_data):
    html = logged_in.get(reverse("exclusions")).content.decode()
    start = html.index('<template id="htmx-failures">')
    failures = html[start : html.index("</template>", start)]
    for name in ("change-failed", "change-unreachable", "load-failed", "load-unreachable"):
        assert f'data-failure="{name}"' in failures
    assert failures.count('role="alert" data-refusal') == 4
    assert "{status}" in failures  # desk.js fills in the status


@pytest.mark.parametrize(
    ("url_name", "data", "module", "broken"),
    [
        ("row_review", {"verdict": "confirmed"}, "rows", "_row"),
        ("record_review", {"verdict": "confirmed"}, "judging", "_done"),
        ("row_note", {"note": "quoted"}, "rows", "_row"),
    ],
)
def test_a_change_whose_answer_fails_is_not_recorded(
    reviewer, desk_data, monkeypatch, url_name, data, module, broken
):
    import importlib

    from poimen.services import review_record

    record = desk_data["verbatim"]
    if url_name == "row_note":
        review_record(record=record, verdict="confirmed", actor=reviewer)
    before = (Review.objects.count(), Event.objects.count())

    def fails(*args, **kwargs):
        raise RuntimeError("the answer could not be rendered")

    monkeypatch.setattr(importlib.import_module(f"poimen.views.{module}"), broken, fails)
    client = Client(raise_request_exception=False)
    client.force_login(reviewer)
    args = [record.pk] if url_name.startswith("record") else ["exclusions", record.pk]
    response = client.post(reverse(url_name, args=args), data, **HTMX)
    assert response.status_code == 500
    assert (Review.objects.count(), Event.objects.count()) == before
    assert Review.objects.filter(note="quoted").count() == 0


def test_an_undo_whose_answer_fails_is_not_recorded(reviewer, desk_data, monkeypatch):
    from poimen.services import review_record
    from poimen.views import rows

    record = desk_data["verbatim"]
    review = review_record(record=record, verdict="confirmed", actor=reviewer)
    monkeypatch.setattr(rows, "_row", lambda *a, **k: 1 / 0)
    client = Client(raise_request_exception=False)
    client.force_login(reviewer)
    response = client.post(reverse("row_undo", args=["exclusions", record.pk]), {}, **HTMX)
    assert response.status_code == 500
    review.refresh_from_db()
    assert review.withdrawn_at is None
    assert not Event.objects.filter(type="review_undone").exists()
