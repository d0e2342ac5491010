"""The matched passages of one (record, artifact) pair as character spans, for review."""

from dataclasses import dataclass

from filter.align import align
from filter.artifacts import ArtifactRecord
from filter.errors import ShinglingMismatch
from filter.index import SortedShingles
from filter.normalise import tokenise
from filter.shingles import DEFAULT_PARAMS, ShingleParams, readable, shingle_hashes


@dataclass(frozen=True, slots=True)
class Passage:
    number: int  # 1-based, in record order: the same number marks it on both sides
    record_span: tuple[int, int]
    artifact_span: tuple[int, int] | None  # None when the artifact's text is not known
    shared: int


def match_passages(
    record_text: str, artifact: ArtifactRecord | str, *, params: ShingleParams = DEFAULT_PARAMS
) -> list[Passage]:
    """Where `record_text` and the artifact line up: [start, end) character offsets in each."""
    if isinstance(artifact, str):
        artifact = ArtifactRecord.from_text(kind="", name="", text=artifact, params=params)
    elif artifact.params != params:
        if artifact.has_text:
            artifact = artifact.reshingled(params)
        elif not readable(artifact.params, params):
            raise ShinglingMismatch(
                f"{artifact.kind}/{artifact.name}: shingles made with "
                f"{artifact.params or 'unstated parameters'}, not {params}, and no text"
            )

    record_tokens = tokenise(record_text)
    record_shingles = shingle_hashes(record_tokens.words, params.k)
    record_pos, artifact_pos = SortedShingles(artifact.shingles).anchors(record_shingles)
    alignments = align(record_pos, artifact_pos, params.k)

    artifact_tokens = tokenise(artifact.text) if artifact.has_text else None
    passages = []
    for number, alignment in enumerate(alignments, start=1):
        record_span = (
            record_tokens.starts[alignment.record_start],
            record_tokens.ends[alignment.record_end - 1],
        )
        artifact_span = None
        if artifact_tokens is not None:
            artifact_span = (
                artifact_tokens.starts[alignment.artifact_start],
                artifact_tokens.ends[alignment.artifact_end - 1],
            )
        passages.append(Passage(number, record_span, artifact_span, alignment.shared))
    return passages
