"""Artifact rows to and from the filter's ArtifactRecord."""

import numpy as np

from filter import ArtifactRecord, ShingleParams
from poimen.models import SHINGLE_DTYPE, Artifact


def artifact_from_record(artifact_record: ArtifactRecord) -> Artifact:
    """An unsaved Artifact row holding `artifact_record` (whose params must be stated)."""
    return Artifact(
        kind=artifact_record.kind,
        name=artifact_record.name,
        sha256=artifact_record.sha256,
        text=artifact_record.text or "",
        shingle_normaliser=artifact_record.params.normaliser,
        shingle_k=artifact_record.params.k,
        shingle_hash=artifact_record.params.hash,
        shingles=np.ascontiguousarray(artifact_record.shingles, dtype=SHINGLE_DTYPE).tobytes(),
        n_tokens=artifact_record.n_tokens,
        emitted_at=artifact_record.emitted_at,
    )


def artifact_to_record(artifact: Artifact) -> ArtifactRecord:
    return ArtifactRecord(
        kind=artifact.kind,
        name=artifact.name,
        sha256=artifact.sha256,
        shingles=artifact.shingle_array,
        emitted_at=artifact.emitted_at,
        params=artifact_params(artifact),
        text=artifact.text or None,
        n_tokens=artifact.n_tokens,
    )


def artifact_params(artifact: Artifact) -> ShingleParams:
    """The params the row's shingles were made with."""
    return ShingleParams(
        normaliser=artifact.shingle_normaliser, k=artifact.shingle_k, hash=artifact.shingle_hash
    )
