"""The filter over the stored artifacts and policies, and the way back from its matches to rows."""

from dataclasses import dataclass

from filter import ArtifactRecord, DerivedFilter, ShinglingMismatch
from poimen.artifact_records import artifact_from_record, artifact_to_record
from poimen.models import Artifact
from poimen.policies import Policies, report_floor


@dataclass
class ArtifactIndex:
    """A DerivedFilter holding the stored artifacts, their row ids, and the policies it used."""

    filter: DerivedFilter
    artifact_ids: dict[tuple[str, str, str], int]
    policies: Policies


class ArtifactUnusable(Exception):
    """An artifact the filter can neither use nor re-shingle: matching without it is unsafe."""


def artifact_index_load(*, kind: str | None = None) -> ArtifactIndex:
    """A filter holding every stored artifact (of `kind`, when given) and the stored policies."""
    policies = Policies.load()
    derived_filter = DerivedFilter(
        thresholds=policies.thresholds,
        default_threshold=policies.threshold_for(""),
        min_shared=dict(policies.min_shared),
        # Kinds without a policy of their own take the app's defaults, not the library's.
        default_min_shared=policies.min_shared_for(""),
        min_overlap=report_floor(),
    )
    artifacts = Artifact.objects.order_by("pk")
    if kind is not None:
        artifacts = artifacts.filter(kind=kind)
    ids, reshingled = {}, []
    for artifact in artifacts.iterator(chunk_size=500):
        artifact_record = artifact_to_record(artifact)
        try:
            added = derived_filter.add(artifact_record)
        except ShinglingMismatch as error:
            raise ArtifactUnusable(str(error)) from None
        if added.params != artifact_record.params:
            reshingled.append((artifact.pk, added))
        ids[(artifact.kind, artifact.name, artifact.sha256)] = artifact.pk
    _store_reshingled(reshingled)
    return ArtifactIndex(filter=derived_filter, artifact_ids=ids, policies=policies)


def _store_reshingled(reshingled: list[tuple[int, ArtifactRecord]]) -> None:
    """Keep shingles the filter had to make again from the text (after the shingling
    parameters changed), so that it is done once, not on every run."""
    for pk, artifact_record in reshingled:
        fresh = artifact_from_record(artifact_record)
        Artifact.objects.filter(pk=pk).update(
            shingle_normaliser=fresh.shingle_normaliser,
            shingle_k=fresh.shingle_k,
            shingle_hash=fresh.shingle_hash,
            shingles=fresh.shingles,
            n_tokens=fresh.n_tokens,
        )
