"""Which verdicts fit a record (poimen.team.verdicts): the rule itself, the review service refusing
exactly what does not fit, and the desk's buttons (record page and list row) offering exactly
what the rule offers."""

import re

import pytest
from django.db import transaction
from django.urls import reverse

from poimen.models import Record, Review
from poimen.services import InputError, review_record
from poimen.team.verdicts import verdicts_fitting, verdicts_offered

C, FP, FN = Review.Verdict.CONFIRMED, Review.Verdict.FALSE_POSITIVE, Review.Verdict.FALSE_NEGATIVE
KEYS = {C: "c", FP: "f", FN: "n"}

# state: (record in desk_data_redacted, verdict given first or None, the list whose row shows it)
STATES = {
    "excluded by the filter": ("verbatim", None, "exclusions"),
    "redacted by the filter": ("pasted", None, "exclusions"),
    "near miss": ("near", None, "near_misses"),
    "no match": ("unrelated", None, None),
    "released copy": ("verbatim", FP, "exclusions"),
    "excluded by a reviewer": ("near", FN, "exclusions"),
}
EXPECTED = {  # state: (fitting, offered)
    "excluded by the filter": ([C, FP], [C, FP]),
    "redacted by the filter": ([C, FP], [C, FP]),
    "near miss": ([FP, FN], [FN]),
    "no match": ([FP], []),
    "released copy": ([C, FP], [C]),
    "excluded by a reviewer": ([C, FP, FN], [C, FP]),
}


def record_in(state: str, desk_data, actor) -> Record:
    name, first, _ = STATES[state]
    record = desk_data[name]
    if first is not None:
        review_record(record=record, verdict=first, actor=actor)
    return Record.objects.select_related("best_artifact", "review").get(pk=record.pk)


@pytest.mark.parametrize("state", list(STATES))
def test_the_rule_says_which_verdicts_fit_and_which_the_desk_offers(
    state, desk_data_redacted, reviewer
):
    record = record_in(state, desk_data_redacted, reviewer)
    assert (verdicts_fitting(record), verdicts_offered(record)) == EXPECTED[state]


@pytest.mark.parametrize("state", list(STATES))
def test_the_review_service_takes_exactly_the_verdicts_that_fit(
    state, desk_data_redacted, reviewer
):
    record = record_in(state, desk_data_redacted, reviewer)
    accepted = []
    for verdict in Review.Verdict:
        with transaction.atomic():
            try:
                review_record(record=record, verdict=verdict, actor=reviewer)
            except InputError:
                pass
            else:
                accepted.append(verdict)
            transaction.set_rollback(True)
    assert accepted == verdicts_fitting(record)


def test_a_false_negative_on_a_copy_the_filter_caught_is_refused(desk_data, reviewer):
    with pytest.raises(InputError, match="decided this record derived"):
        review_record(record=desk_data["verbatim"], verdict=FN, actor=reviewer)


def offered_keys(html: str) -> list[str]:
    return re.findall(r'data-shortcut="([cfn])"', html)


@pytest.mark.parametrize("state", list(STATES))
def test_the_record_page_and_the_list_row_offer_what_the_rule_offers(
    state, desk_data_redacted, reviewer, client
):
    record = record_in(state, desk_data_redacted, reviewer)
    expected = [KEYS[verdict] for verdict in verdicts_offered(record)]
    client.force_login(reviewer)
    page = client.get(reverse("record", args=[record.pk])).content.decode()
    assert offered_keys(page) == expected
    list_name = STATES[state][2]
    if list_name is None:
        return
    # The released are listed among the exclusions when the verdict filter asks for them.
    query = {"verdict": FP.value} if record.review and record.review.verdict == FP else {}
    html = client.get(reverse(list_name), query).content.decode()
    row = re.search(rf'<tr data-row id="row-{record.pk}".*?</tr>', html, re.S)
    assert row, f"record {record.pk} is not in {list_name}"
    assert offered_keys(row.group(0)) == expected


def test_a_bulk_verdict_from_the_desk_asks_the_rule_too(desk_data, reviewer, client):
    """Confirming the released: a released near miss was never excluded, so none is judged."""
    review_record(record=desk_data["near"], verdict=FP, actor=reviewer)
    client.force_login(reviewer)
    url = reverse("exclusions_bulk") + "?verdict=false_positive"
    response = client.post(url, {"verdict": "confirmed", "expected": 1})
    assert response.status_code == 400
    assert f"record #{desk_data['near'].pk}: a confirmation judges an exclusion" in (
        response.content.decode()
    )
    assert not Review.objects.filter(verdict=C).exists()
