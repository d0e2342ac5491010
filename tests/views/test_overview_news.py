"""The overview opens on what changed since the reviewer last looked and what waits for them,
with exclusions over time by kind and the last result of each check (issue 24)."""

import pytest
from django.urls import reverse

from poimen.models import Event
from poimen.services import records_claim, review_record, threshold_change

pytestmark = pytest.mark.django_db


def overview(client):
    return client.get(reverse("overview"))


def test_a_first_visit_tells_the_past_week_then_what_changed_since(
    logged_in, desk_data, make_reviewer, tuner
):
    first = overview(logged_in)
    assert first.context["changes"].first_visit
    assert b"In the past week" in first.content
    assert b"records the filter excluded or redacted" in first.content

    second = overview(logged_in)
    assert not second.context["changes"].anything
    assert b"Since you last looked" in second.content and b"Nothing: no change" in second.content

    sam = make_reviewer("sam")
    review_record(record=desk_data["verbatim"], verdict="confirmed", actor=sam)
    threshold_change(kind="skill", value=0.3, reason="tuning", actor=tuner)
    third = overview(logged_in)
    lines = {line.words[1]: line.count for line in third.context["changes"].lines}
    assert lines["verdicts by colleagues"] == 1
    assert lines["threshold or policy changes"] == 1
    assert lines["records the filter excluded or redacted"] >= 1  # the near miss, now over
    html = third.content.decode()
    assert "Threshold and policy changes" in html and "tom" in html


def test_ones_own_verdicts_are_not_news(logged_in, desk_data, reviewer):
    overview(logged_in)
    review_record(record=desk_data["verbatim"], verdict="confirmed", actor=reviewer)
    assert not overview(logged_in).context["changes"].anything


def test_what_waits_counts_claims_second_reviews_and_disagreements(logged_in, desk_data, reviewer):
    records_claim(records=desk_data["verbatim"].__class__.objects.all(), actor=reviewer, size=2)
    waiting = overview(logged_in).context["waiting"]
    assert waiting.claimed == 2
    html = overview(logged_in).content.decode()
    assert "of your" in html and "claimed records" in html


def test_the_checks_say_never_run_then_their_last_result(logged_in, desk_data):
    html = overview(logged_in).content.decode()
    assert html.count("never run") == 2
    Event.objects.log("derived_verified", data={"ok": True, "checked": 1200, "offenders": 0})
    Event.objects.log("audit_verified", data={"ok": True, "events": 50})
    Event.objects.log("audit_verified", data={"ok": False, "events": 51})
    checks = {c.name: c for c in overview(logged_in).context["checks"]}
    assert checks["derived_verified"].ok is True
    assert checks["audit_verified"].ok is False
    html = overview(logged_in).content.decode()
    assert "never run" not in html
    assert "1,200 records checked" in html and "51 events checked" in html


def test_exclusions_over_time_draws_a_line_per_kind(logged_in, desk_data):
    response = overview(logged_in)
    over_time = response.context["over_time"]
    assert len(over_time.days) == 30
    skill = next(s for s in over_time.series if s.kind == "skill")
    assert skill.counts[-1] == 2  # today's: the verbatim copy and the one behind a script
    html = response.content.decode()
    assert 'class="kind-line style-0" data-kind="skill"' in html


def test_the_minutes_refresh_of_the_counts_is_not_a_visit(logged_in, desk_data):
    overview(logged_in)
    logged_in.get(reverse("overview"), HTTP_HX_REQUEST="true", HTTP_HX_TARGET="counts")
    assert overview(logged_in).context["changes"].since is not None
