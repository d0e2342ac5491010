"""Generated injection blocks: what a memory system registers every turn (the block of memories
a search returned, as it was put in the prompt), for the registry bench (bench/registry.py).

A block is a fixed header, three to six memories of 8 to 24 words drawn from the real corpus's
vocabulary (so their words are real and their 5-word windows are not), and a fixed footer: the
header and footer are boilerplate every block shares, what a registry of a million blocks holds
a million times, and what a check must not pay a million postings for.
"""

import numpy as np

HEADER = "## Memories relevant to this conversation"
FOOTER = "Use these memories only where they bear on the user's request; they may be out of date."


def vocabulary(texts: list[str], *, size: int = 20_000) -> list[str]:
    """The `size` most frequent ASCII words of `texts` (two letters or more)."""
    counts: dict[str, int] = {}
    for text in texts:
        for word in text.split():
            word = word.strip(".,;:!?()[]{}<>\"'`*#|").lower()
            if len(word) > 1 and word.isascii() and word.isalpha():
                counts[word] = counts.get(word, 0) + 1
    return sorted(counts, key=lambda w: (-counts[w], w))[:size]


def blocks(words: list[str], count: int, *, seed: int, start: int = 0) -> list[str]:
    """Blocks number start .. start + count - 1 (the same blocks for the same seed)."""
    rng = np.random.default_rng([seed, start])
    lines_per_block = rng.integers(3, 7, size=count)
    n_lines = int(lines_per_block.sum())
    lengths = rng.integers(8, 25, size=n_lines)
    # frequent words more often, as in text (a word's weight falls as 1 / (rank + 20))
    weights = 1.0 / (np.arange(len(words)) + 20.0)
    picks = rng.choice(len(words), size=int(lengths.sum()), p=weights / weights.sum())
    vocabulary_array = np.array(words, dtype=object)
    chosen = vocabulary_array[picks]
    ends = np.cumsum(lengths)
    lines = [
        "- " + " ".join(chosen[end - length : end])
        for end, length in zip(ends.tolist(), lengths.tolist(), strict=True)
    ]
    out, at = [], 0
    for number, n in enumerate(lines_per_block.tolist()):
        memories = "\n".join(lines[at : at + n])
        out.append(f"{HEADER} (block {start + number})\n\n{memories}\n\n{FOOTER}")
        at += n
    return out
