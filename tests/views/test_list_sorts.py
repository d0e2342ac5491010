"""The lists' sorts: nearest the threshold first (the cases that need a human), by artifact;
each pages by keyset and gives the record view its neighbours."""

import pytest
from django.urls import reverse

from poimen.selectors import paging


@pytest.fixture
def spread(make_artifact, make_record):
    first = make_artifact(name="release-notes")
    second = make_artifact(name="incident-review")
    overlaps = [(1.0, first), (0.81, second), (0.95, first), (0.83, second), (0.9, first)]
    return [
        make_record(
            text=f"copy at {o}",
            status="excluded",
            derived=True,
            best_overlap=o,
            best_artifact=a,
        )
        for o, a in overlaps
    ]


def walk(client, url):
    """Every row id of a list, page by page, following the cursors."""
    seen, after = [], ""
    while True:
        response = client.get(url + (f"&after={after}" if after else ""))
        page = response.context["page"]
        seen += [row.pk for row in page.items]
        if not page.next_cursor:
            return seen
        after = page.next_cursor


def test_nearest_the_threshold_first_pages_in_order(logged_in, spread, monkeypatch):
    monkeypatch.setattr(paging, "PAGE_SIZE", 2)
    seen = walk(logged_in, reverse("exclusions") + "?sort=closeness")
    overlaps = {r.pk: r.best_overlap for r in spread}
    assert [overlaps[pk] for pk in seen] == [0.81, 0.83, 0.9, 0.95, 1.0]


def test_by_artifact_groups_the_records_of_each(logged_in, spread, monkeypatch):
    monkeypatch.setattr(paging, "PAGE_SIZE", 2)
    seen = walk(logged_in, reverse("exclusions") + "?sort=artifact")
    artifacts = {r.pk: r.best_artifact_id for r in spread}
    order = [artifacts[pk] for pk in seen]
    assert order == sorted(order) and len(seen) == 5


def test_the_record_view_moves_along_the_closeness_order(logged_in, spread):
    by_overlap = {r.best_overlap: r.pk for r in spread}
    url = reverse("record", args=[by_overlap[0.83]]) + "?list=exclusions&sort=closeness"
    context = logged_in.get(url).context
    assert (context["previous_id"], context["next_id"]) == (by_overlap[0.81], by_overlap[0.9])


def test_the_artifact_filter_takes_a_name_and_offers_the_names(logged_in, spread):
    named = logged_in.get(reverse("exclusions") + "?artifact=incident-review")
    overlaps = sorted(row.best_overlap for row in named.context["page"].items)
    assert overlaps == [0.81, 0.83]
    assert '<option value="release-notes">' in named.content.decode()
    by_kind = logged_in.get(reverse("exclusions") + "?artifact=skill:release-notes")
    assert len(by_kind.context["page"].items) == 3
    unknown = logged_in.get(reverse("exclusions") + "?artifact=no-such-skill")
    assert "no artifact is named" in unknown.content.decode()


def test_the_list_says_how_much_of_it_is_reviewed(logged_in, spread, reviewer):
    from poimen.services import review_record

    review_record(record=spread[0], verdict="confirmed", actor=reviewer)
    html = logged_in.get(reverse("exclusions") + "?sort=closeness").content.decode()
    assert "1 of 5 reviewed, 4 left" in html
