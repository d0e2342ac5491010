"""The desk on redactions: the record page strikes the cuts through with the evidence text one
click away, the exclusions list filters by decision, verdicts and undo on a redaction, the
overview's counts and the tuning page's policy form."""

import pytest
from django.conf import settings
from django.urls import reverse

from poimen import selectors
from poimen.models import Event, KindPolicy, Record

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def as_reviewer(client, reviewer):
    client.force_login(reviewer)
    return client


@pytest.fixture
def as_tuner(client, tuner):
    client.force_login(tuner)
    return client


def test_the_record_page_strikes_the_cuts_through_with_the_evidence_text_one_click_away(
    as_reviewer, desk_data_redacted
):
    pasted = desk_data_redacted["pasted"]
    html = as_reviewer.get(reverse("record", args=[pasted.pk])).content.decode()
    assert html.count('<del class="cut"') == len(pasted.cut_spans) == 1
    assert '<span class="badge redacted">redacted</span>' in html
    assert "<details" in html and "Evidence text" in html
    assert "[… poimen:" in html  # the evidence text, with its marker
    assert "Confirm redaction" in html
    fragment = as_reviewer.get(reverse("record", args=[pasted.pk]), **HTMX).content.decode()
    assert '<del class="cut"' in fragment and "<!doctype html>" not in fragment


def test_the_cut_is_escaped_like_the_rest_of_the_record(as_reviewer, desk_data_redacted):
    script = desk_data_redacted["script"]
    html = as_reviewer.get(reverse("record", args=[script.pk])).content.decode()
    assert "<script>alert" not in html


@pytest.mark.parametrize(
    "decision, shown, hidden",
    [
        ("redacted", "pasted", "verbatim"),
        ("excluded", "verbatim", "pasted"),
        ("", "pasted", "near"),
    ],
)
def test_the_exclusions_list_filters_by_decision(
    as_reviewer, desk_data_redacted, decision, shown, hidden
):
    html = as_reviewer.get(reverse("exclusions"), {"decision": decision}).content.decode()
    assert f"#{desk_data_redacted[shown].pk}<" in html
    assert f"#{desk_data_redacted[hidden].pk}<" not in html


def test_a_false_positive_on_a_redaction_returns_it_to_evidence_whole_and_undo_restores_it(
    as_reviewer, desk_data_redacted
):
    pasted = desk_data_redacted["pasted"]
    url = reverse("record_review", args=[pasted.pk])
    assert as_reviewer.post(url, {"verdict": "false_positive"}).status_code == 302
    released = Record.objects.get(pk=pasted.pk)
    assert (released.status, released.evidence) == ("evidence", released.text)
    as_reviewer.post(reverse("record_undo", args=[pasted.pk]))
    assert Record.objects.get(pk=pasted.pk).status == "redacted"
    as_reviewer.post(url, {"verdict": "confirmed"})
    assert Record.objects.get(pk=pasted.pk).status == "redacted"


def test_the_overview_counts_redacted_records_per_kind(as_reviewer, desk_data_redacted):
    (skill,) = [c for c in selectors.kind_counts() if c.kind == "skill"]
    assert (skill.excluded, skill.redacted, skill.unreviewed) == (2, 1, 3)
    html = as_reviewer.get(reverse("overview")).content.decode()
    assert "decision=redacted" in html and "redacted</div>" in html


def test_the_tuning_page_previews_a_policy_then_sets_it_once_confirmed(
    as_tuner, desk_data_redacted
):
    page = as_tuner.get(reverse("tuning_kind", args=["skill"])).content.decode()
    assert 'name="policy-on_derived" value="redact"' in page
    assert 'name="policy-min_shared"' in page
    asked = {
        "policy-on_derived": "exclude",
        "policy-paste_words": "1000000",
        "policy-min_shared": str(settings.POIMEN_DEFAULT_MIN_SHARED),
        "policy-reason": "we want whole records out",
    }
    response = as_tuner.post(reverse("tuning_policy", args=["skill"]), asked)
    assert response.status_code == 302  # to the page, with the change's dry run
    assert KindPolicy.objects.get(kind="skill").on_derived == "redact"
    preview = as_tuner.get(response.url).content.decode()
    assert "Not saved yet." in preview and "1 redacted → excluded" in preview
    assert 'name="policy-confirmed" value="True"' in preview
    response = as_tuner.post(
        reverse("tuning_policy", args=["skill"]), {**asked, "policy-confirmed": "True"}
    )
    assert response.status_code == 302
    assert KindPolicy.objects.get(kind="skill").on_derived == "exclude"
    assert Record.objects.get(pk=desk_data_redacted["pasted"].pk).status == "excluded"
    assert Event.objects.filter(type="policy_changed", data__reason="we want whole records out")


def test_a_policy_change_without_a_reason_changes_nothing(as_tuner, desk_data_redacted):
    as_tuner.post(
        reverse("tuning_policy", args=["skill"]),
        {"policy-on_derived": "exclude", "policy-paste_words": "50", "policy-confirmed": "True"},
    )
    assert not KindPolicy.objects.filter(kind="skill", on_derived="exclude").exists()


def test_a_reviewer_who_may_not_tune_cannot_set_a_policy(as_reviewer, desk_data_redacted):
    response = as_reviewer.post(
        reverse("tuning_policy", args=["skill"]),
        {"policy-on_derived": "exclude", "policy-reason": "x"},
    )
    assert response.status_code == 403


def test_the_overview_follows_a_policy_change(desk_data_redacted):
    from poimen.services import kind_policy_change

    assert [(c.excluded, c.redacted) for c in selectors.kind_counts()] == [(2, 1)]
    kind_policy_change(kind="skill", on_derived="exclude", reason="whole records out")
    assert [(c.excluded, c.redacted) for c in selectors.kind_counts()] == [(3, 0)]
