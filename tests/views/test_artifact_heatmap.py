"""The artifact page's heat map: full page, the records of one part as an htmx fragment, bad
part numbers, who may see it, and a query bound that does not grow with the records."""

import pytest
from django.urls import reverse

from poimen.models import Match

HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "copies"}


@pytest.fixture
def copied(desk_data):
    return desk_data["verbatim"].matches.get()


def test_full_page_shows_the_map_with_numbers_and_a_legend(client, reviewer, copied):
    client.force_login(reviewer)
    html = client.get(reverse("artifact", args=[copied.artifact_id])).content.decode()
    assert 'class="heatmap' in html and "0: not copied" in html
    assert 'aria-label="Part 1: copied by 1 record"' in html
    assert "?part=1#copies" in html


def test_a_part_fragment_lists_the_records_linked(client, reviewer, copied):
    client.force_login(reviewer)
    url = reverse("artifact", args=[copied.artifact_id]) + "?part=1"
    response = client.get(url, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and "<!doctype html>" not in html
    assert "Records that copy part 1" in html
    assert f'href="{reverse("record", args=[copied.record_id])}?match={copied.pk}"' in html
    full = client.get(url).content.decode()
    assert "<!doctype html>" in full and "Records that copy part 1" in full


@pytest.mark.parametrize("part", ["999", "abc", "²", "-1", "0"])
def test_a_part_that_is_not_there_is_said_not_a_500(client, reviewer, copied, part):
    client.force_login(reviewer)
    url = reverse("artifact", args=[copied.artifact_id])
    response = client.get(url, {"part": part})
    assert response.status_code == 200
    assert "No part" in response.content.decode()


def test_signed_out_is_sent_to_log_in(client, copied):
    response = client.get(reverse("artifact", args=[copied.artifact_id]) + "?part=1")
    assert response.status_code == 302 and "login" in response["Location"]


def _copies(make_record, artifact, n, batch="a"):
    for i in range(n):
        record = make_record(external_id=f"copy-{artifact.pk}-{batch}-{i}")
        Match.objects.create(
            record=record,
            artifact=artifact,
            overlap=0.3 + (i % 50) / 100,
            artifact_containment=0.5,
            record_containment=0.5,
            shared=30,
            threshold=0.8,
            artifact_ranges=[[i % 30, i % 30 + 25], [60, 70]],
        )


def test_queries_do_not_grow_with_the_copying_records(
    client, reviewer, make_artifact, make_record, django_assert_max_num_queries
):
    client.force_login(reviewer)
    artifact = make_artifact(kind="skill", name="release-notes")
    _copies(make_record, artifact, 10)
    url = reverse("artifact", args=[artifact.pk])
    client.get(url + "?part=2")
    with django_assert_max_num_queries(20) as few:
        client.get(url + "?part=2")
        queries = len(few)
    _copies(make_record, make_artifact(kind="skill", name="incident-review"), 1)  # new version
    _copies(make_record, artifact, 400, batch="b")
    client.get(url + "?part=2")  # the map made again, for the new matches
    with django_assert_max_num_queries(queries):
        html = client.get(url + "?part=2").content.decode()
    assert "Records that copy part 2" in html
