"""Threshold tuning: who may, the histogram, the live preview and saving through the service."""

import pytest
from django.urls import reverse

from poimen import selectors, services
from poimen.models import Event, KindPolicy, Record, ThresholdChange

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def as_tuner(client, tuner):
    client.force_login(tuner)
    return client


def test_reviewers_get_403_on_tuning(client, reviewer, desk_data):
    client.force_login(reviewer)
    assert client.get(reverse("tuning")).status_code == 403
    assert client.get(reverse("tuning_kind", args=["skill"])).status_code == 403
    response = client.post(
        reverse("tuning_kind", args=["skill"]), {"value": "0.5", "reason": "try"}
    )
    assert response.status_code == 403
    assert not ThresholdChange.objects.exists()


def test_reviewers_see_no_tuning_link(client, reviewer, tuner, desk_data):
    client.force_login(reviewer)
    assert b'href="/tuning/"' not in client.get(reverse("overview")).content
    client.force_login(tuner)
    assert b'href="/tuning/"' in client.get(reverse("overview")).content


def test_tuning_pages_full_and_as_fragments(as_tuner, desk_data):
    assert as_tuner.get(reverse("tuning")).status_code == 200
    assert b"<!doctype html>" not in as_tuner.get(reverse("tuning"), **HTMX).content
    url = reverse("tuning_kind", args=["skill"])
    full = as_tuner.get(url)
    assert full.status_code == 200 and b"<svg" in full.content
    histogram = as_tuner.get(url + "?scale=log", HTTP_HX_TARGET="histogram", **HTMX)
    assert b"<svg" in histogram.content and b"log scale" in histogram.content
    assert b"Try a new threshold" not in histogram.content


def test_unknown_kind_is_404(as_tuner, desk_data):
    assert as_tuner.get(reverse("tuning_kind", args=["nonsense"])).status_code == 404


def test_histogram_stacks_stored_matches_by_verdict(desk_data, reviewer):
    from poimen.services import review_record

    review_record(record=desk_data["verbatim"], verdict="false_positive", actor=reviewer)
    histogram = selectors.overlap_histogram("skill")
    top_bin = histogram.bins - 1
    assert histogram.counts["false_positive"][top_bin] >= 1
    assert histogram.counts["unreviewed"][top_bin] >= 1  # the <script> copy
    assert sum(histogram.totals) == sum(
        1 for r in Record.objects.all() for _ in r.matches.filter(artifact__kind="skill")
    )


def test_preview_lowering_the_threshold_counts_the_newly_excluded(as_tuner, desk_data):
    url = reverse("tuning_kind", args=["skill"])
    response = as_tuner.get(url + "?value=0.3", HTTP_HX_TARGET="preview", **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "newly redacted" in html and "newly excluded" in html and "<!doctype html>" not in html
    assert 'hx-swap-oob="true"' in html  # the proposed line moves on the histogram too
    preview = services.threshold_preview("skill", 0.3)
    # the near miss is half a skill between two genuine paragraphs: redacted, not excluded
    assert (preview.newly_redacted, preview.newly_excluded, preview.newly_released) == (1, 0, 0)
    assert preview.sample


def test_preview_raising_the_threshold_counts_the_newly_released(desk_data):
    preview = services.threshold_preview("skill", 1.0)
    assert (preview.newly_redacted, preview.newly_excluded, preview.newly_released) == (0, 0, 2)
    assert services.threshold_preview("skill", 0.8).newly_released == 0


def test_preview_counts_reviewers_verdicts_apart(desk_data, reviewer):
    from poimen.services import review_record

    review_record(record=desk_data["near"], verdict="false_negative", actor=reviewer)
    preview = services.threshold_preview("skill", 0.3)
    assert preview.newly_excluded == preview.newly_redacted == 0
    assert preview.flagged["false_negative"] == 1 and preview.flagged_total == 1


def test_preview_below_the_floor_says_a_refilter_is_needed(as_tuner, desk_data, settings):
    settings.POIMEN_REPORT_FLOOR = 0.2
    url = reverse("tuning_kind", args=["skill"])
    response = as_tuner.get(url + "?value=0.1", HTTP_HX_TARGET="preview", **HTMX)
    assert b"refilter" in response.content
    bad = as_tuner.get(url + "?value=abc", HTTP_HX_TARGET="preview", **HTMX)
    assert b"between 0 and 1" in bad.content


def test_saving_needs_a_reason(as_tuner, desk_data):
    url = reverse("tuning_kind", args=["skill"])
    response = as_tuner.post(url, {"value": "0.3", "reason": ""})
    assert response.status_code == 400
    assert b"Say why" in response.content
    assert not ThresholdChange.objects.exists()


def test_saving_below_the_floor_is_refused(as_tuner, desk_data):
    url = reverse("tuning_kind", args=["skill"])
    response = as_tuner.post(url, {"value": "0.05", "reason": "catch everything"})
    assert response.status_code == 400
    assert b"refilter is needed" in response.content
    assert not ThresholdChange.objects.exists()


def test_saving_applies_the_threshold_through_the_service(as_tuner, desk_data, tuner):
    url = reverse("tuning_kind", args=["skill"])
    response = as_tuner.post(url, {"value": "0.3", "reason": "the near miss is a copy"})
    assert response.status_code == 302
    assert KindPolicy.objects.get(kind="skill").threshold == 0.3
    change = ThresholdChange.objects.get()
    assert (change.old, change.new, change.actor) == (0.8, 0.3, tuner)
    event = Event.objects.get(type="threshold_changed")
    assert event.actor == tuner and event.data["reason"] == "the near miss is a copy"
    assert Record.objects.get(pk=desk_data["near"].pk).status == "redacted"
    page = as_tuner.get(url).content.decode()
    assert "the near miss is a copy" in page


@pytest.mark.parametrize("value", [0.3, 0.95, 1.0])
def test_preview_predicts_what_saving_does(desk_data, tuner, value):
    from poimen.services import threshold_change

    preview = services.threshold_preview("skill", value)
    result = threshold_change(kind="skill", value=value, reason="check", actor=tuner)
    assert (preview.newly_excluded, preview.newly_redacted, preview.newly_released) == (
        result.excluded,
        result.redacted,
        result.released,
    )


def test_preview_sees_a_verdict_given_after_it_was_first_computed(desk_data, reviewer):
    from poimen.services import review_record, review_undo

    assert services.threshold_preview("skill", 0.3).newly_redacted == 1
    review_record(record=desk_data["near"], verdict="false_negative", actor=reviewer)
    after = services.threshold_preview("skill", 0.3)
    assert after.newly_redacted == 0 and after.flagged["false_negative"] == 1
    review_undo(record=desk_data["near"], actor=reviewer)
    assert services.threshold_preview("skill", 0.3).newly_redacted == 1
