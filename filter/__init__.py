"""poimen's matcher: is an ingested record a copy of an emitted artifact?

Pure Python (with numpy and xxhash); knows nothing of Django. Text goes in, verdicts and spans
come out: normalise -> tokens with offsets -> shingles -> index -> passages -> overlap -> verdict.

May import: nothing (it knows nothing of Django or of poimen).
"""

from filter.artifacts import ArtifactRecord, sha256_hex
from filter.errors import ManifestError, ShinglingMismatch
from filter.matcher import DerivedFilter
from filter.normalise import NORMALISER_VERSION, Tokens, tokenise, words
from filter.passages import Passage, match_passages
from filter.shingles import DEFAULT_PARAMS, ShingleParams, readable, shingle_text
from filter.verdict import Match, MixedCoverage, Verdict

__all__ = [
    "DEFAULT_PARAMS",
    "NORMALISER_VERSION",
    "ArtifactRecord",
    "DerivedFilter",
    "ManifestError",
    "Match",
    "MixedCoverage",
    "Passage",
    "ShingleParams",
    "ShinglingMismatch",
    "Tokens",
    "Verdict",
    "match_passages",
    "readable",
    "sha256_hex",
    "shingle_text",
    "tokenise",
    "words",
]
