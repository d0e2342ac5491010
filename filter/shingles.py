"""k-token shingles hashed to 64 bits, in text order.

Each token is hashed once with xxh3-64 (of its UTF-8); the hash of the shingle starting at
token i is a polynomial over 2**64 of the k token hashes from i on. Hashing tokens rather than
joined k-token strings does the per-token work in C once and the per-shingle work in numpy,
not in a Python loop. The index reads a hash's top bits, which the multiplications carry
every token's bits into.
"""

from dataclasses import asdict, dataclass
from itertools import chain

import numpy as np
import xxhash

from filter import speedups
from filter.index import expand_ranges
from filter.normalise import COMPILED_NORMALISERS, NORMALISER_VERSION, word_bytes

HASH_NAME = "xxh3-64-poly-v1"

_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_EMPTY = np.empty(0, dtype=np.uint64)


@dataclass(frozen=True, slots=True)
class ShingleParams:
    """What a shingle list was made with; lists made under different params never compare."""

    normaliser: str = NORMALISER_VERSION
    k: int = 5
    hash: str = HASH_NAME

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "ShingleParams":
        return cls(normaliser=str(data["normaliser"]), k=int(data["k"]), hash=str(data["hash"]))

    def __str__(self) -> str:
        return f"{self.normaliser}/k={self.k}/{self.hash}"


DEFAULT_PARAMS = ShingleParams()


def supported(params: ShingleParams) -> bool:
    """Whether this code can make shingles under `params` (it knows one normaliser and hash)."""
    return params.normaliser == NORMALISER_VERSION and params.hash == HASH_NAME and params.k >= 1


# Earlier normalisers whose shingle lists are still matched as they stand where there is no
# text to make them again (an artifact known from its manifest line alone). Their words are
# this version's except around what changed since, so such a list still finds a copy, a few
# shingles fewer where the text had those: norm-v1 kept fullwidth (and other NFKC-folded)
# markup as words, and took "12:" at a line start for a gutter whatever followed; norm-v2 kept
# the read shapes of docs/read-shapes.md (a path or "12:" before each line, escapes) as words. The
# artifact keeps the params it was made with, and is reported until registered again with
# its text; any other list without text is refused (ShinglingMismatch).
READABLE_NORMALISERS = ("norm-v1", "norm-v2")


def readable(made_with: ShingleParams | None, params: ShingleParams = DEFAULT_PARAMS) -> bool:
    """Whether a shingle list made with `made_with` is matched as it stands under `params`:
    the same params, or an earlier normaliser's list with the same k and hash."""
    if made_with == params:
        return True
    return (
        made_with is not None
        and params.normaliser == NORMALISER_VERSION
        and made_with.normaliser in READABLE_NORMALISERS
        and (made_with.k, made_with.hash) == (params.k, params.hash)
    )


def token_hashes(tokens: list[str] | list[bytes]) -> np.ndarray:
    encoded = map(str.encode, tokens) if tokens and isinstance(tokens[0], str) else tokens
    return np.fromiter(map(xxhash.xxh3_64_intdigest, encoded), dtype=np.uint64, count=len(tokens))


def _mix(hashed: np.ndarray, k: int) -> np.ndarray:
    """The polynomial of every k consecutive token hashes; the i-th starts at token i."""
    count = len(hashed) - k + 1
    mixed = hashed[:count].copy()
    for offset in range(1, k):
        mixed *= _MULTIPLIER
        mixed += hashed[offset : offset + count]
    return mixed


def shingle_hashes(tokens: list[str] | list[bytes], k: int) -> np.ndarray:
    """The hash of every window of k consecutive tokens; the i-th starts at token i."""
    if len(tokens) < k:
        return _EMPTY
    return _mix(token_hashes(tokens), k)


def batch_shingle_hashes(token_lists: list[list[bytes]], k: int) -> tuple[np.ndarray, np.ndarray]:
    """The shingles of many texts at once, one numpy pass for all of them, and `firsts`: the
    shingles of text r are shingles[firsts[r] : firsts[r + 1]], as shingle_hashes gives them."""
    if len(token_lists) == 1:
        # one text (a check() call): none of the batch's bookkeeping
        shingles = shingle_hashes(token_lists[0], k)
        return shingles, np.array([0, len(shingles)], dtype=np.int64)
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    windows = np.maximum(lengths - k + 1, 0)
    firsts = np.zeros(len(token_lists) + 1, dtype=np.int64)
    np.cumsum(windows, out=firsts[1:])
    if not firsts[-1]:
        return _EMPTY, firsts
    mixed = _mix(token_hashes(list(chain.from_iterable(token_lists))), k)
    # Keep the windows that start and end inside one text.
    token_firsts = np.cumsum(lengths) - lengths
    return mixed[expand_ranges(token_firsts, windows)], firsts


def texts_shingles(texts: list[str], k: int) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The shingles of many texts, `firsts` (as batch_shingle_hashes gives them) and each
    text's word count: in C where filter/_speedups.c is built, else in Python."""
    compiled = speedups.compiled
    if compiled is None:
        token_lists = [word_bytes(text) for text in texts]
        shingles, firsts = batch_shingle_hashes(token_lists, k)
        return shingles, firsts, [len(tokens) for tokens in token_lists]
    mixed, counts = compiled.text_shingles(texts, k, *COMPILED_NORMALISERS)
    shingles = np.frombuffer(mixed, dtype=np.uint64)
    if len(texts) == 1:
        firsts = np.array([0, len(shingles)], dtype=np.int64)
        return shingles, firsts, memoryview(counts).cast("q").tolist()
    n_tokens = np.frombuffer(counts, dtype=np.int64)
    firsts = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(np.maximum(n_tokens - (k - 1), 0), out=firsts[1:])
    return shingles, firsts, n_tokens.tolist()


def shingle_text(text: str, params: ShingleParams = DEFAULT_PARAMS) -> tuple[np.ndarray, int]:
    """(shingle hashes, token count) of `text` under `params`."""
    if not supported(params):
        raise ValueError(f"cannot make shingles under {params}; this code makes {DEFAULT_PARAMS}")
    shingles, _, n_tokens = texts_shingles([text], params.k)
    return shingles, n_tokens[0]
