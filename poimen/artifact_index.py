"""The filter over the stored artifacts and policies, and the way back from its matches to rows."""

from dataclasses import dataclass

from django.db.models import QuerySet

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


def _filter_settings(policies: Policies) -> dict:
    """The DerivedFilter's settings under `policies`."""
    return {
        "thresholds": policies.thresholds,
        "default_threshold": policies.threshold_for(""),
        "min_shared": dict(policies.min_shared),
        # Kinds without a policy of their own take the app's defaults, not the library's.
        "default_min_shared": policies.min_shared_for(""),
    }


def artifact_index_load(
    *, kind: str | None = None, policies: Policies | None = None, up_to: int | None = None
) -> ArtifactIndex:
    """A filter holding every stored artifact (of `kind`, when given; of ids up to `up_to`,
    when given) and the stored policies (or `policies`, read by the caller)."""
    policies = policies or Policies.load()
    derived_filter = DerivedFilter(**_filter_settings(policies), min_overlap=report_floor())
    artifacts = Artifact.objects.order_by("pk")
    if kind is not None:
        artifacts = artifacts.filter(kind=kind)
    if up_to is not None:
        artifacts = artifacts.filter(pk__lte=up_to)
    artifact_index = ArtifactIndex(filter=derived_filter, artifact_ids={}, policies=policies)
    _add_artifacts(artifact_index, artifacts)
    return artifact_index


def artifact_index_extend(
    artifact_index: ArtifactIndex, *, artifacts: QuerySet, policies: Policies
) -> ArtifactIndex:
    """A new index: `artifact_index`'s artifacts and `artifacts` (new rows), under `policies`.
    The shingles it holds already are not read or sorted again, and `artifact_index` itself
    is left as it was, for the checks still using it."""
    extended = artifact_index_under(artifact_index, policies)
    extended.artifact_ids = dict(artifact_index.artifact_ids)
    _add_artifacts(extended, artifacts.order_by("pk"))
    return extended


def artifact_index_under(artifact_index: ArtifactIndex, policies: Policies) -> ArtifactIndex:
    """A new index of `artifact_index`'s artifacts under `policies`, every setting of the
    filter they make (thresholds and min_shared), its shingles shared, not read again.
    `artifact_index` is left as it was, for the checks still using it."""
    if policies == artifact_index.policies:
        derived_filter = artifact_index.filter.copy()
    else:
        derived_filter = artifact_index.filter.copy(**_filter_settings(policies))
    return ArtifactIndex(
        filter=derived_filter, artifact_ids=artifact_index.artifact_ids, policies=policies
    )


def _add_artifacts(artifact_index: ArtifactIndex, artifacts: QuerySet) -> None:
    reshingled = []
    for artifact in artifacts.iterator(chunk_size=500):
        artifact_record = artifact_to_record(artifact)
        try:
            added = artifact_index.filter.add(artifact_record)
        except ShinglingMismatch as error:
            raise ArtifactUnusable(str(error)) from None
        if added.params != artifact_record.params:
            reshingled.append((artifact.pk, added))
        artifact_index.artifact_ids[(artifact.kind, artifact.name, artifact.sha256)] = artifact.pk
    _store_reshingled(reshingled)
    # Merged now, not on the first check: the index may be shared by threads from here on.
    artifact_index.filter.prepare()


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
