"""The record view of a record decided across kinds lists every artifact it copies; a record
of one artifact does not (its side by side says it all)."""

from django.urls import reverse

from poimen.models import Match


def test_a_record_pasted_from_two_kinds_shows_both_artifacts(client, reviewer, pasted_across_kinds):
    client.force_login(reviewer)
    html = client.get(reverse("record", args=[pasted_across_kinds.pk])).content.decode()
    assert "data-copies" in html
    assert 'data-copy="git-commit-message"' in html and 'data-copy="celery-task-retries"' in html
    other = Match.objects.filter(record=pasted_across_kinds).order_by("overlap").first()
    fragment = client.get(
        reverse("record", args=[pasted_across_kinds.pk]),
        {"match": other.pk},
        headers={"HX-Request": "true", "HX-Target": "comparison"},
    ).content.decode()
    assert "data-copies" in fragment and "(shown)" in fragment


def test_a_record_of_one_artifact_lists_no_copies(client, reviewer, desk_data):
    client.force_login(reviewer)
    html = client.get(reverse("record", args=[desk_data["verbatim"].pk])).content.decode()
    assert "data-copies" not in html
