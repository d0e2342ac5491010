"""The passages a record shares with an artifact, for the side-by-side view, each marked when
it is boilerplate (text common to many artifacts: a licence, a stock heading)."""

from dataclasses import dataclass

import numpy as np
from django.db.models import Count, Max

from filter import DEFAULT_PARAMS, match_passages, shingle_text
from poimen.artifact_records import artifact_to_record
from poimen.models import Artifact, Record
from poimen.selectors.cache import kept_in_process

# A passage is boilerplate when most of its shingles occur in at least this many artifacts
# (distinct kind and name: versions of one skill count once).
BOILERPLATE_MIN_ARTIFACTS = 3


@dataclass(frozen=True)
class MarkedPassage:
    number: int
    record_span: tuple[int, int]
    artifact_span: tuple[int, int] | None
    shared: int
    boilerplate: bool


def _shingle_document_frequency() -> tuple[np.ndarray, np.ndarray]:
    """Each distinct artifact shingle and the number of artifacts holding it, an artifact
    being a (kind, name): the versions of one skill, or a text-less copy from a manifest,
    share their text with it and are not "many artifacts"."""
    per_artifact: dict[tuple[str, str], list[np.ndarray]] = {}
    rows = (
        Artifact.objects.filter(
            shingle_normaliser=DEFAULT_PARAMS.normaliser,
            shingle_k=DEFAULT_PARAMS.k,
            shingle_hash=DEFAULT_PARAMS.hash,
        )
        .values_list("kind", "name", "shingles")
        .iterator(chunk_size=500)
    )
    for kind, name, blob in rows:
        per_artifact.setdefault((kind, name), []).append(np.frombuffer(bytes(blob), dtype="<u8"))
    if not per_artifact:
        return np.empty(0, dtype="<u8"), np.empty(0, dtype=np.int64)
    distinct = [np.unique(np.concatenate(versions)) for versions in per_artifact.values()]
    return np.unique(np.concatenate(distinct), return_counts=True)


def shingle_document_frequency() -> tuple[np.ndarray, np.ndarray]:
    """Kept in the process (numpy arrays), made again when an artifact is added."""
    key = str(Artifact.objects.aggregate(n=Max("id"), c=Count("id")))
    return kept_in_process("shingle_frequency", key, _shingle_document_frequency)


def is_boilerplate(passage_text: str) -> bool:
    """A passage whose shingles mostly occur in many artifacts."""
    shingles, _ = shingle_text(passage_text, DEFAULT_PARAMS)
    known, counts = shingle_document_frequency()
    if not len(shingles) or not len(known):
        return False
    positions = np.searchsorted(known, shingles)
    positions[positions >= len(known)] = 0
    frequency = np.where(known[positions] == shingles, counts[positions], 0)
    return bool(np.median(frequency) >= BOILERPLATE_MIN_ARTIFACTS)


def passages_for(record: Record, artifact: Artifact) -> list[MarkedPassage]:
    passages = match_passages(record.text, artifact_to_record(artifact))
    return [
        MarkedPassage(
            number=p.number,
            record_span=p.record_span,
            artifact_span=p.artifact_span,
            shared=p.shared,
            boilerplate=is_boilerplate(record.text[p.record_span[0] : p.record_span[1]]),
        )
        for p in passages
    ]
