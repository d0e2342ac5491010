"""The guarantee as a property: nothing that copies an artifact reaches evidence, on any path.

Generated records (tests/strategies.py: up to three artifacts' passages of random sizes in
random shapes, among genuine text, quoted sentences and mentions) go through ingest (in
process and in worker processes), a refilter with nothing changed, threshold and policy
changes (min_shared up and down too) and their undo. After each: verify_derived passes on
them, every stored decision is the one a fresh check of the text makes (filter.decide), a dry
run moves exactly what applying moves, and a round trip restores every status."""

import json
import uuid

import pytest
from django.conf import settings
from hypothesis import given
from hypothesis import strategies as st

from filter.align import MIN_ANCHORS
from filter.decide import decide
from poimen.decision.artifact_index import artifact_index_load
from poimen.decision.checked import check_texts
from poimen.decision.record_decision import checked_facts
from poimen.models import Record
from poimen.services import (
    artifact_register,
    derived_verify,
    kind_policy_change,
    records_ingest,
    records_refilter,
    threshold_change,
)
from tests.strategies import ARTIFACTS, on_the_database, records

pytestmark = pytest.mark.django_db

EXAMPLES = on_the_database(12)


@pytest.fixture
def registered(db):
    for kind, name, text in ARTIFACTS:
        artifact_register(kind=kind, name=name, text=text)


def decisions(ids) -> dict[int, tuple]:
    """Each record's stored decision: its status and its cuts."""
    rows = Record.objects.filter(pk__in=ids).values_list("pk", "status", "cut_spans")
    return {pk: (status, [tuple(cut) for cut in cuts]) for pk, status, cuts in rows}


def fresh_decisions(ids) -> dict[int, tuple]:
    """What a fresh check of each record's text decides, under today's artifacts and policies."""
    index = artifact_index_load()
    stored = list(Record.objects.filter(pk__in=ids).order_by("pk"))
    checked = check_texts(index.filter, [record.text for record in stored])
    fresh = {}
    for record, verdict in zip(stored, checked, strict=True):
        decision = decide(checked_facts(record.text, record.metadata, verdict), index.policies)
        fresh[record.pk] = (decision.status, list(decision.cuts))
    return fresh


def assert_the_guarantee_holds(ids) -> None:
    assert derived_verify(record_ids=ids, scope="property test").offenders == []
    assert decisions(ids) == fresh_decisions(ids)


def ingested(texts, tmp_path, *, workers=0) -> list[int]:
    source = f"generated-{uuid.uuid4().hex[:8]}"
    path = tmp_path / f"{source}.jsonl"
    lines = [json.dumps({"id": f"r{n}", "text": text}) for n, text in enumerate(texts)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records_ingest(paths=[path], source=source, workers=workers)
    return list(Record.objects.filter(source=source).values_list("pk", flat=True))


def change_both_ways(ids, change, values) -> None:
    """Apply each value of a change after its dry run: the dry run moves what applying does,
    the guarantee holds after each, and the last value (the first undone) restores all."""
    before = decisions(ids)
    for value in values:
        dry_run = change(value, dry_run=True)
        applied = change(value, dry_run=False)
        assert (dry_run.moves, dry_run.kept_by_review) == (applied.moves, applied.kept_by_review)
        assert sorted(dry_run.changed) == sorted(applied.changed)
        assert_the_guarantee_holds(ids)
    assert decisions(ids) == before


@EXAMPLES
@given(texts=st.lists(records(), min_size=1, max_size=5), workers=st.sampled_from([0, 1]))
def test_ingest_refilter_and_every_change_leave_no_copy_in_evidence(
    registered, tmp_path, texts, workers
):
    ids = ingested(texts, tmp_path, workers=workers)
    assert_the_guarantee_holds(ids)

    before = decisions(ids)
    assert records_refilter().moves == {}  # nothing changed: nothing moves
    assert decisions(ids) == before

    for kind in ("skill", "reference"):

        def threshold(value, *, dry_run, kind=kind):
            return threshold_change(kind=kind, value=value, reason="property", dry_run=dry_run)

        def policy(value, *, dry_run, kind=kind):
            return kind_policy_change(
                kind=kind, on_derived=value, reason="property", dry_run=dry_run
            )

        def min_shared(value, *, dry_run, kind=kind):
            return kind_policy_change(
                kind=kind, min_shared=value, reason="property", dry_run=dry_run
            )

        change_both_ways(ids, threshold, (0.9, 0.8))
        change_both_ways(ids, threshold, (0.5, 0.8))
        change_both_ways(ids, policy, ("exclude", "redact"))
        default = settings.POIMEN_DEFAULT_MIN_SHARED
        # higher: decided from the stored matches; lower: checked again from the text
        change_both_ways(ids, min_shared, (default * 2, default))
        change_both_ways(ids, min_shared, (MIN_ANCHORS, default))
