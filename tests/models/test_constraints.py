"""Database constraints say what Python checks would only hope for."""

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from poimen.models import Artifact, KindPolicy, Record


@pytest.mark.django_db
@pytest.mark.parametrize("threshold", [-0.01, 1.01])
def test_kind_policy_threshold_must_lie_between_0_and_1(threshold):
    with pytest.raises(IntegrityError), transaction.atomic():
        KindPolicy.objects.create(kind="skill", threshold=threshold)


@pytest.mark.django_db
def test_kind_policy_defaults_are_the_cards():
    policy = KindPolicy.objects.create(kind="skill")
    assert (policy.threshold, policy.min_shared) == (0.8, 20)


def test_an_artifact_version_is_stored_once(make_artifact):
    artifact = make_artifact()
    duplicate = Artifact(
        kind=artifact.kind,
        name=artifact.name,
        sha256=artifact.sha256,
        shingle_normaliser="norm-v1",
        shingle_k=5,
        shingle_hash="x",
        shingles=b"",
        emitted_at=timezone.now(),
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        duplicate.save()


def test_a_new_version_of_a_skill_is_a_new_row(make_artifact):
    first = make_artifact(name="release-notes")
    second = make_artifact(name="release-notes", text=first.text + "\n- One more rule.\n")
    assert first.pk != second.pk
    assert Artifact.objects.filter(name="release-notes").count() == 2


def test_a_record_is_stored_once_per_source_and_external_id(make_record):
    make_record(source="vault", external_id="r1")
    make_record(source="other", external_id="r1")
    with pytest.raises(IntegrityError), transaction.atomic():
        make_record(source="vault", external_id="r1")
    assert Record.objects.count() == 2


def test_shingles_round_trip_as_little_endian_uint64(make_artifact):
    from filter import ArtifactRecord

    artifact = Artifact.objects.get(pk=make_artifact().pk)
    expected = ArtifactRecord.from_text(kind="skill", name="x", text=artifact.text).shingles
    assert len(bytes(artifact.shingles)) == 8 * len(expected)
    assert (artifact.shingle_array == expected).all()
