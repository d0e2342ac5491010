"""Closeness order walked by index (selectors.closeness, paging._walked) equals the same order
computed naively: |overlap - the threshold of the best artifact's kind|, then id, over the whole
list. Both sides of each threshold, exact ties (dyadic overlaps: 0.5 and 1.0 lie 0.25 from
0.75), per-kind thresholds, records of a kind without a policy and without an artifact, pages
of every size, the review mode's next record and a record's neighbours."""

import itertools

import pytest

from poimen import selectors
from poimen.decision.policies import Policies, report_floor
from poimen.models import KindPolicy, Record, Review

# Dyadic overlaps tie exactly on both sides of 0.75 and 0.5; the others do not tie at all.
OVERLAPS = [1.0, 0.875, 0.75, 0.625, 0.5, 0.375, 0.25, 0.81, 0.8, 0.79, 0.55, 0.45, 0.95, 0.3]


@pytest.fixture
def spread(make_artifact, make_record, reviewer):
    KindPolicy.objects.create(kind="skill", threshold=0.75, min_shared=20, on_derived="exclude")
    KindPolicy.objects.create(kind="reference", threshold=0.5, min_shared=20, on_derived="exclude")
    artifacts = [
        make_artifact(kind="skill", name="release-notes", text="Release notes skill."),
        make_artifact(kind="reference", name="incident-review", text="Incident review page."),
        make_artifact(
            kind="agent", name="agent-of-the-deploy", text="Deploy agent instructions."
        ),  # no policy: the default threshold
        None,  # decided without a best artifact
    ]
    records = []
    statuses = itertools.cycle(["excluded", "redacted", "evidence", "excluded", "evidence"])
    # Each overlap twice per artifact, so that equal overlaps tie and order by id.
    for overlap, artifact, _ in itertools.product(OVERLAPS, artifacts, range(2)):
        records.append(
            make_record(
                text=f"copy at {overlap}",
                status=next(statuses),
                derived=True,
                best_overlap=overlap,
                best_artifact=artifact,
            )
        )
    for record in records[::7]:
        review = Review.objects.create(record=record, verdict="confirmed", reviewer=reviewer)
        Record.objects.filter(pk=record.pk).update(review=review)
    return records


def naive(listed) -> list[int]:
    """The list's ids in closeness order, computed in Python from the policies."""
    policies = Policies.load()
    rows = Record.objects.filter(pk__in=listed.values("pk")).select_related("best_artifact")

    def key(record):
        kind = record.best_artifact.kind if record.best_artifact else ""
        return (abs(record.best_overlap - policies.threshold_for(kind)), record.pk)

    return [record.pk for record in sorted(rows, key=key)]


def walked(listed, size: int) -> list[int]:
    seen, cursor = [], ""
    while True:
        page = selectors.page_of(listed, sort="closeness", cursor=cursor, size=size)
        seen += [record.pk for record in page.items]
        assert len(page.items) <= size
        if not page.next_cursor:
            return seen
        cursor = page.next_cursor


LISTS = {
    "exclusions": lambda **f: selectors.exclusion_list(
        filters=selectors.ListFilters(sort="closeness", **f)
    ),
    "near_misses": lambda **f: selectors.near_miss_list(
        filters=selectors.ListFilters(sort="closeness", **f)
    ),
}


@pytest.mark.parametrize("name", LISTS)
@pytest.mark.parametrize("kind", ["", "reference", "agent"])
def test_pages_in_closeness_order_equal_the_naive_order(spread, name, kind):
    listed = LISTS[name](kind=kind)
    expected = naive(listed)
    assert len(expected) >= 3
    # Both sides of a threshold are in the list (near misses reach the threshold itself).
    overlaps = {r.pk: r.best_overlap for r in spread}
    assert {overlaps[pk] < 0.75 for pk in expected} == {True, False} or name == "near_misses"
    for size in (1, 3, 50):
        assert walked(listed, size) == expected, f"pages of {size}"


def test_the_sql_order_agrees_with_the_naive_one(spread):
    listed = LISTS["exclusions"]()
    assert [record.pk for record in listed] == naive(listed)
    assert report_floor() <= min(OVERLAPS)


@pytest.mark.parametrize("name", LISTS)
def test_review_mode_steps_through_the_unreviewed_in_closeness_order(spread, name):
    listed = LISTS[name]()
    expected = [pk for pk in naive(listed) if Record.objects.get(pk=pk).review_id is None]
    seen, cursor = [], ""
    while (found := selectors.next_unreviewed(listed, sort="closeness", cursor=cursor)) is not None:
        record, cursor = found
        seen.append(record.pk)
    assert seen == expected


def test_each_record_has_its_naive_neighbours(spread):
    listed = LISTS["exclusions"]()
    order = naive(listed)
    for index, pk in enumerate(order):
        previous, following = selectors.list_neighbours(
            listed, Record.objects.get(pk=pk), sort="closeness"
        )
        assert previous == (order[index - 1] if index else None)
        assert following == (order[index + 1] if index + 1 < len(order) else None)
