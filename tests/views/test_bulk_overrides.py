"""A bulk verdict over records that carry a colleague's verdict says, before it applies, how
many and whose, and asks once more; the record's history then says whose verdict it
overrode (issue 24)."""

import pytest
from django.urls import reverse

from poimen.models import Event, Record
from poimen.services import review_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged_by_sam(desk_data, make_reviewer):
    sam = make_reviewer("sam")
    review_record(record=desk_data["verbatim"], verdict="confirmed", actor=sam)
    return desk_data


def test_the_bulk_page_says_how_many_carry_a_colleague_verdict_and_whose(logged_in, judged_by_sam):
    response = logged_in.get(reverse("exclusions_bulk") + "?kind=skill")
    assert response.context["colleagues"].count == 1
    html = response.content.decode()
    assert "1 of these 2 records carries a colleague's verdict" in html
    assert "sam: confirmed on 1 record" in html
    assert "asked once more" in html


def test_applying_asks_once_more_then_overrides_with_the_history_saying_so(
    logged_in, judged_by_sam
):
    url = reverse("exclusions_bulk") + "?kind=skill"
    first = logged_in.post(
        url, {"verdict": "false_positive", "expected": 2, "overrides_expected": 1}
    )
    assert first.status_code == 200 and first.context["ask_overrides"]
    assert b"Override 1 colleague verdict and apply to 2 records" in first.content
    assert not Event.objects.filter(type="review_bulk").exists()

    second = logged_in.post(
        url,
        {
            "verdict": "false_positive",
            "expected": 2,
            "overrides_expected": 1,
            "overrides_confirmed": "True",
        },
    )
    assert second.status_code == 302
    assert Record.objects.filter(review__verdict="false_positive").count() == 2
    verbatim = judged_by_sam["verbatim"]
    page = logged_in.get(reverse("record", args=[verbatim.pk])).content.decode()
    assert "overriding sam's verdict, confirmed" in page
    script = logged_in.get(reverse("record", args=[judged_by_sam["script"].pk])).content
    assert b"data-overrides" not in script
    audit = logged_in.get(reverse("audit")).content.decode()
    assert "overriding: 1 colleague verdict: sam&#x27;s confirmed (1)" in audit


def test_a_colleague_verdict_given_after_the_question_asks_again(
    logged_in, desk_data, make_reviewer
):
    url = reverse("exclusions_bulk") + "?kind=skill"
    ola = make_reviewer("ola")
    review_record(record=desk_data["script"], verdict="confirmed", actor=ola)
    response = logged_in.post(
        url,
        {
            "verdict": "false_positive",
            "expected": 2,
            "overrides_expected": 0,
            "overrides_confirmed": "True",
        },
    )
    assert response.status_code == 200
    assert b"1 with a colleague" in response.content
    assert not Event.objects.filter(type="review_bulk").exists()
