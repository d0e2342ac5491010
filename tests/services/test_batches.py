"""What a batch is held against before it is written: the policies in force when it is."""

import pytest
from django.db import transaction

from poimen.decision.artifact_index import artifact_index_load
from poimen.decision.checked import check_texts
from poimen.models import KindPolicy
from poimen.readers import Candidate
from poimen.services.batches import checked_in_force
from tests.factories import demo_skill, near_copy

pytestmark = pytest.mark.django_db


def candidate(text: str) -> Candidate:
    return Candidate(
        source="tests",
        external_id="r1",
        source_path="",
        position=None,
        session="",
        role="",
        text=text,
    )


def test_a_batch_checked_again_under_new_policies_leaves_the_index_it_was_given(make_artifact):
    make_artifact(name="release-notes")
    index = artifact_index_load()
    checked_under = index.policies
    fresh = [candidate(near_copy(demo_skill("release-notes")))]
    checked = check_texts(index.filter, [fresh[0].text])
    assert checked[0].derived
    KindPolicy.objects.create(kind="skill", threshold=0.99)
    with transaction.atomic():
        rechecked, index_in_force = checked_in_force(fresh, checked, index)
    assert not rechecked[0].derived
    assert index_in_force.policies.threshold_for("skill") == 0.99
    # The index given still checks as it did (the next batches', another thread's checks).
    assert index.policies == checked_under
    assert index.filter.threshold_for("skill") == checked_under.threshold_for("skill")
    assert check_texts(index.filter, [fresh[0].text])[0].derived


def test_a_batch_checked_under_the_policies_in_force_is_not_checked_again(make_artifact):
    make_artifact(name="release-notes")
    index = artifact_index_load()
    fresh = [candidate(near_copy(demo_skill("release-notes")))]
    checked = check_texts(index.filter, [fresh[0].text])
    with transaction.atomic():
        same, same_index = checked_in_force(fresh, checked, index)
    assert same is checked and same_index is index
