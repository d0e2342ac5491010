"""k-token shingles hashed to 64 bits, in text order.

Each token is hashed once with xxh3-64; the hash of the shingle starting at token i mixes the
k token hashes from i on (a polynomial over 2**64, then the splitmix64 finaliser so that every
bit depends on every token). Hashing tokens rather than joined k-token strings does the
per-token work in C once and the per-shingle work in numpy, not in a Python loop.
"""

from dataclasses import asdict, dataclass

import numpy as np
import xxhash

from filter.normalise import NORMALISER_VERSION, words

HASH_NAME = "xxh3-64-mix-v1"

_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
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


def token_hashes(tokens: list[str]) -> np.ndarray:
    encoded = map(str.encode, tokens)
    return np.fromiter(map(xxhash.xxh3_64_intdigest, encoded), dtype=np.uint64, count=len(tokens))


def shingle_hashes(tokens: list[str], k: int) -> np.ndarray:
    """The hash of every window of k consecutive tokens; the i-th starts at token i."""
    count = len(tokens) - k + 1
    if count <= 0:
        return _EMPTY
    hashed = token_hashes(tokens)
    mixed = hashed[:count].copy()
    for offset in range(1, k):
        mixed *= _MULTIPLIER
        mixed += hashed[offset : offset + count]
    # splitmix64's finaliser
    mixed ^= mixed >> np.uint64(30)
    mixed *= _MIX_1
    mixed ^= mixed >> np.uint64(27)
    mixed *= _MIX_2
    mixed ^= mixed >> np.uint64(31)
    return mixed


def shingle_text(text: str, params: ShingleParams = DEFAULT_PARAMS) -> tuple[np.ndarray, int]:
    """(shingle hashes, token count) of `text` under `params`."""
    if not supported(params):
        raise ValueError(f"cannot make shingles under {params}; this code makes {DEFAULT_PARAMS}")
    tokens = words(text)
    return shingle_hashes(tokens, params.k), len(tokens)
