"""The passages a record shares with an artifact, for the side-by-side view, each marked when
it is boilerplate (text common to many artifacts: a licence, a stock heading)."""

from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache

import numpy as np
from django.db.models import Count, Max

from filter import DEFAULT_PARAMS, match_passages, shingle_text, tokenise
from poimen.decision.artifact_records import artifact_to_record
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
    # Word-level differences inside the passage, as character spans of each text: the words
    # the record changed or inserted, and the artifact's words it changed or dropped.
    record_changes: tuple[tuple[int, int], ...] = field(default=())
    artifact_changes: tuple[tuple[int, int], ...] = field(default=())


@lru_cache(maxsize=4)
def _tokens(text: str):
    # A record's passages are compared one by one against the same two texts.
    return tokenise(text)


def _words(text: str, span: tuple[int, int]) -> list[tuple[str, int, int]]:
    """The normaliser's words of `text` inside `span`, with their offsets: what it blanks
    (line-number gutters, path prefixes, markup) is no word, so a copy read with line
    numbers differs from its artifact in nothing. The whole text is tokenised, as the
    matcher does: a rule that reads a line's start needs the line before the span."""
    start, end = span
    tokens = _tokens(text)
    return [
        (word, s, e)
        for word, s, e in zip(tokens.words, tokens.starts, tokens.ends, strict=True)
        if s >= start and e <= end
    ]


def word_changes(
    record_text: str, record_span, artifact_text: str, artifact_span
) -> tuple[tuple, tuple]:
    """The words that differ between a passage's two sides, as spans in each text."""
    ours = _words(record_text, record_span)
    theirs = _words(artifact_text, artifact_span)
    matcher = SequenceMatcher(None, [w for w, _, _ in ours], [w for w, _, _ in theirs], False)
    record_changes, artifact_changes = [], []
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            continue
        if a2 > a1:
            record_changes.append((ours[a1][1], ours[a2 - 1][2]))
        if b2 > b1:
            artifact_changes.append((theirs[b1][1], theirs[b2 - 1][2]))
    return tuple(record_changes), tuple(artifact_changes)


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
    marked = []
    for p in passages:
        changes = ((), ())
        if p.artifact_span is not None and artifact.text:
            changes = word_changes(record.text, p.record_span, artifact.text, p.artifact_span)
        marked.append(
            MarkedPassage(
                number=p.number,
                record_span=p.record_span,
                artifact_span=p.artifact_span,
                shared=p.shared,
                boilerplate=is_boilerplate(record.text[p.record_span[0] : p.record_span[1]]),
                record_changes=changes[0],
                artifact_changes=changes[1],
            )
        )
    return marked
