"""The counts the desk shows are exact, as a property: after each write path (ingest, a refilter
that moves records to a new best artifact, of another kind or not, threshold and policy
changes, a verdict, a bulk verdict, the undo of each), every list page, the bulk page and
review mode show, for each kind and verdict filter, the number of records in the filtered set
and of those without a verdict, counted one by one here from the records' plain fields
(status, overlap, the best artifact's own kind, the verdict in force) and the policies in
force.

The lists count through Record.best_artifact_kind, which the database keeps (migration 0027):
the property checks that copy against the artifact itself too."""

import json
import uuid

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from poimen import selectors
from poimen.decision.policies import Policies, report_floor
from poimen.models import Event, Record, Review
from poimen.services import (
    artifact_register,
    kind_policy_change,
    records_ingest,
    records_refilter,
    review_record,
    review_undo,
    reviews_bulk,
    reviews_bulk_undo,
    threshold_change,
)
from tests.strategies import ARTIFACTS, on_the_database, records

pytestmark = pytest.mark.django_db

EXAMPLES = on_the_database(8)

DECIDED = (Record.Status.EXCLUDED, Record.Status.REDACTED)
KINDS = ("", "skill", "reference")
EXCLUSION_VERDICTS = ("", "unreviewed", "confirmed", "false_positive")


@pytest.fixture
def desk(client, reviewer):
    for kind, name, text in ARTIFACTS:
        artifact_register(kind=kind, name=name, text=text)
    client.force_login(reviewer)
    return client


def expected(list_name: str, kind: str, verdict: str = "") -> tuple[int, int]:
    """(records, records without a verdict) of a filtered list, one record at a time."""
    policies, floor = Policies.load(), report_floor()
    total = left = 0
    for record in Record.objects.select_related("best_artifact", "review"):
        own_kind = record.best_artifact.kind if record.best_artifact else ""
        if kind and own_kind != kind:
            continue
        in_force = record.review.verdict if record.review else None
        if list_name == "near_misses":
            member = (
                record.status == Record.Status.EVIDENCE
                and floor <= record.best_overlap <= policies.threshold_for(own_kind)
            )
        elif verdict == Review.Verdict.FALSE_POSITIVE:
            member = in_force == verdict
        else:
            member = record.status in DECIDED and (
                not verdict or (verdict == "unreviewed" and in_force is None) or in_force == verdict
            )
        total += member
        left += member and record.review_id is None
    return total, left


def shown(desk, list_name: str, kind: str, verdict: str = "") -> tuple[int, int]:
    """(records, without a verdict) as the list page shows them."""
    url = reverse("exclusions" if list_name == "exclusions" else "near_misses")
    context = desk.get(url, {"kind": kind, "verdict": verdict}).context
    page = context["page"]
    assert not page.count_capped
    if list_name == "exclusions":
        assert context["reviewed"] == page.progress
    return page.count, page.progress.left


def shown_in_review_mode(desk, list_name: str, kind: str) -> tuple[int, int]:
    progress = desk.get(reverse("review"), {"list": list_name, "kind": kind}).context["progress"]
    assert progress.reviewed == progress.total - progress.left
    return progress.total, progress.left


def shown_on_the_bulk_page(desk, kind: str, verdict: str) -> int:
    query = {"kind": kind, "verdict": verdict}
    return desk.get(reverse("exclusions_bulk"), query).context["count"]


def assert_every_count_is_exact(desk) -> None:
    kinds = dict(Record.objects.values_list("pk", "best_artifact__kind"))
    copies = dict(Record.objects.values_list("pk", "best_artifact_kind"))
    assert copies == {pk: kind or "" for pk, kind in kinds.items()}
    for kind in KINDS:
        for verdict in EXCLUSION_VERDICTS:
            counted = expected("exclusions", kind, verdict)
            assert shown(desk, "exclusions", kind, verdict) == counted
            assert shown_on_the_bulk_page(desk, kind, verdict) == counted[0]
        assert shown(desk, "near_misses", kind) == expected("near_misses", kind)
        for list_name in ("exclusions", "near_misses"):
            assert shown_in_review_mode(desk, list_name, kind) == expected(list_name, kind)


def ingest(texts, tmp_path) -> None:
    source = f"generated-{uuid.uuid4().hex[:8]}"
    path = tmp_path / f"{source}.jsonl"
    lines = [json.dumps({"id": f"r{n}", "text": text}) for n, text in enumerate(texts)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records_ingest(paths=[path], source=source)


def a_record(data) -> Record | None:
    # An index drawn whatever the database holds (records pile up from example to example):
    # what Hypothesis draws must not depend on it.
    ids = sorted(Record.objects.values_list("pk", flat=True))
    at = data.draw(st.integers(0, 10_000))
    return Record.objects.get(pk=ids[at % len(ids)]) if ids else None


# --- the write paths: each may refuse (a verdict that does not fit, nothing to undo) ---------


def refilter_after_a_new_artifact(data, actor, tmp_path):
    """A stored record's whole text registered as an artifact: the refilter makes it that
    record's best artifact (overlap 1), whose kind may differ from its best artifact's before
    (a write of best_artifact on stored records)."""
    record = a_record(data)
    kind = data.draw(st.sampled_from(["skill", "reference"]))
    artifact_register(kind=kind, name=f"stored-{uuid.uuid4().hex[:8]}", text=record.text)
    records_refilter()


def more_records(data, actor, tmp_path):
    ingest(data.draw(st.lists(records(), min_size=1, max_size=3)), tmp_path)


def threshold(data, actor, tmp_path):
    kind = data.draw(st.sampled_from(["skill", "reference"]))
    value = data.draw(st.sampled_from([0.3, 0.5, 0.8, 0.9]))
    threshold_change(kind=kind, value=value, reason="property")


def policy(data, actor, tmp_path):
    kind = data.draw(st.sampled_from(["skill", "reference"]))
    on_derived = data.draw(st.sampled_from(["exclude", "redact"]))
    kind_policy_change(kind=kind, on_derived=on_derived, reason="property")


def verdict(data, actor, tmp_path):
    record = a_record(data)
    if record is not None:
        given = data.draw(st.sampled_from(Review.Verdict.values))
        review_record(record=record, verdict=given, actor=actor, note="property")


def bulk_verdict(data, actor, tmp_path):
    kind = data.draw(st.sampled_from(KINDS))
    given = data.draw(st.sampled_from([Review.Verdict.CONFIRMED, Review.Verdict.FALSE_POSITIVE]))
    listed = selectors.exclusion_list(filters=selectors.ListFilters(kind=kind))
    reviews_bulk(records=listed, verdict=given, actor=actor, filters_described="property")


def undo(data, actor, tmp_path):
    record = a_record(data)
    if record is not None:
        review_undo(record=record, actor=actor)


def bulk_undo(data, actor, tmp_path):
    bulks = Event.objects.filter(type=Event.Type.REVIEW_BULK).order_by("-pk")
    event = bulks.first()
    if event is not None:
        reviews_bulk_undo(event=event, actor=actor)


WRITES = [
    refilter_after_a_new_artifact,
    more_records,
    threshold,
    policy,
    verdict,
    bulk_verdict,
    undo,
    bulk_undo,
]


@EXAMPLES
@given(
    texts=st.lists(records(), min_size=1, max_size=5),
    writes=st.lists(st.sampled_from(WRITES), min_size=1, max_size=6),
    data=st.data(),
)
def test_every_count_shown_is_the_filtered_sets_size_after_every_write(
    desk, reviewer, tmp_path, texts, writes, data
):
    ingest(texts, tmp_path)
    assert_every_count_is_exact(desk)
    for write in [refilter_after_a_new_artifact, *writes]:
        try:
            write(data, reviewer, tmp_path)
        except ValidationError:  # refused (does not fit, nothing to undo): nothing written
            pass
        assert_every_count_is_exact(desk)
