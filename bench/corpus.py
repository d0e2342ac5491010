"""The benchmarks' corpus: seeded synthetic skills and assistant turns, and the copies planted
among them (bench.matcher checks them in memory, bench.ingest writes them to files).

The texts are synthetic but built to be hard in the ways real ones are: a Zipf-like vocabulary
with real function words at its head, and stock phrases that independent texts share, so that
unrelated records hit the index by chance. A planted copy is re-rendered the ways
tests.renderings lists, the same ones the acceptance tests use. Everything is seeded.
"""

import random
from dataclasses import dataclass, field

import numpy as np

from tests import renderings

# The head of an English word-frequency list: what makes chance n-gram collisions realistic.
HEAD_WORDS = (
    "the of and to a in is that for it as with be on not this are by or you at from have an "
    "but if can your will all which one do there more when so we use has what about out up "
    "then them these may only other its some should make into time any than run also after "
    "first new each way file test code change need just how before set like check must used "
    "where every same without again still own line work tests data because most see while"
).split()

STOCK_PHRASES = [
    "make sure that the",
    "if you want to",
    "at the end of the",
    "for example",
    "in the test suite",
    "run the tests again",
    "before you start",
    "this means that you",
    "in order to",
    "the first time you",
    "you can use the",
    "as soon as possible",
    "on the other hand",
    "it is a good idea to",
    "the rest of the code",
    "when in doubt ask",
    "there is no need to",
    "keep in mind that",
    "one of the most common",
    "at the same time",
]

COMMANDS = ["pytest", "git", "python", "make", "npm", "docker", "pip", "ruff", "cargo", "psql"]


class Writer:
    """Seeded text that reads, statistically, like documentation and assistant turns."""

    def __init__(
        self,
        seed: int,
        *,
        vocabulary_size: int = 30_000,
        stock_phrases: int = 1_000,
        stock_phrase_share: float = 0.1,
    ):
        self.rng = random.Random(seed)
        self.stock_phrase_share = stock_phrase_share
        numpy_rng = np.random.default_rng(seed)
        tail = self._invented_words(vocabulary_size - len(HEAD_WORDS))
        self.vocabulary = list(HEAD_WORDS) + tail
        ranks = np.arange(1, len(self.vocabulary) + 1)
        weights = 1.0 / ranks**1.05
        self._draws = numpy_rng.choice(
            len(self.vocabulary), size=4_000_000, p=weights / weights.sum()
        ).tolist()
        self._next = 0
        # Stock phrases: a few written out, the rest drawn from the vocabulary; used with Zipf
        # popularity, so the commonest appear in a large share of all texts. The defaults make
        # about 1 in 8 unrelated (record, artifact) pairs share a 5-shingle and 1 in 80 share
        # three: harsher than this project's real test texts (1 in 20 share any).
        self.stock_phrases = STOCK_PHRASES + [
            " ".join(self.words(self.rng.randint(4, 8))) for _ in range(stock_phrases)
        ]
        phrase_weights = 1.0 / np.arange(1, len(self.stock_phrases) + 1)
        self._phrase_weights = (phrase_weights / phrase_weights.sum()).tolist()

    def _invented_words(self, count: int) -> list[str]:
        syllables = [c + v for c in "bcdfghklmnprstvwz" for v in "aeiou"] + ["er", "in", "on"]
        seen, words = set(HEAD_WORDS), []
        while len(words) < count:
            word = "".join(self.rng.choice(syllables) for _ in range(self.rng.randint(1, 4)))
            if word not in seen:
                seen.add(word)
                words.append(word)
        return words

    def words(self, count: int) -> list[str]:
        if self._next + count > len(self._draws):
            self._next = 0
        start, self._next = self._next, self._next + count
        return [self.vocabulary[index] for index in self._draws[start : self._next]]

    def sentence(self) -> str:
        parts: list[str] = []
        target = self.rng.randint(8, 24)
        while sum(len(part.split()) for part in parts) < target:
            if self.rng.random() < self.stock_phrase_share:
                parts.append(self.rng.choices(self.stock_phrases, self._phrase_weights)[0])
            else:
                parts.append(" ".join(self.words(self.rng.randint(2, 6))))
        text = " ".join(parts)
        if self.rng.random() < 0.15:
            text += f" with `{self.rng.choice(COMMANDS)} {self.words(1)[0]}`"
        return text[0].upper() + text[1:] + "."

    def paragraph(self, sentences: tuple[int, int] = (2, 5)) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(*sentences)))

    def heading(self) -> str:
        return " ".join(self.words(self.rng.randint(2, 4))).capitalize()

    def code_block(self) -> str:
        lines = [
            f"{self.rng.choice(COMMANDS)} {' '.join(self.words(self.rng.randint(1, 4)))}"
            for _ in range(self.rng.randint(2, 5))
        ]
        return "```bash\n" + "\n".join(lines) + "\n```"

    def skill(self, number: int) -> str:
        name = "-".join(self.words(3)) + f"-{number}"
        blocks = [
            f"---\nname: {name}\ndescription: {self.sentence()}\n---",
            f"# {self.heading()}",
            self.paragraph((2, 3)),
            f"## {self.heading()}",
            "\n".join(f"- {self.sentence()}" for _ in range(self.rng.randint(3, 5))),
            "## Steps",
            "\n".join(f"{i}. {self.sentence()}" for i in range(1, self.rng.randint(4, 7))),
            self.code_block(),
            f"## {self.heading()}",
            "\n".join(f"- {self.sentence()}" for _ in range(self.rng.randint(3, 5))),
            self.paragraph((1, 3)),
        ]
        return "\n\n".join(blocks) + "\n"

    def assistant_turn(self) -> str:
        blocks = [self.paragraph() for _ in range(self.rng.randint(1, 4))]
        if self.rng.random() < 0.5:
            blocks.append("\n".join(f"- {self.sentence()}" for _ in range(self.rng.randint(2, 5))))
        if self.rng.random() < 0.3:
            blocks.append(self.code_block())
        blocks.append(self.paragraph((1, 3)))
        return "\n\n".join(blocks)


# How a planted copy is made from an artifact's text; `other()` gives an unrelated text to
# surround it with (the writer's assistant turns, or an excerpt of a real document).
PLANTINGS = {
    "verbatim": lambda text, other: text,
    "quoted": lambda text, other: renderings.quote(text),
    "read_tool_gutter": lambda text, other: renderings.read_tool_gutter(text),
    "rewrapped": lambda text, other: renderings.rewrap(text, width=60),
    "crlf_fullwidth": lambda text, other: renderings.crlf(renderings.fullwidth_letters(text)),
    "in_a_longer_turn": lambda text, other: other() + "\n\n" + text + "\n\n" + other(),
    "chunk": lambda text, other: text[len(text) // 3 : 2 * len(text) // 3],
    "word_in_ten_changed": lambda text, other: renderings.edit_one_word_in_ten(
        text, "changed", seed=len(text)
    ),
}


# Records pasted from two artifacts (issue 13's last miss): large slices (60-65%) of each, one
# after the other, as a user pastes two documents into one turn; neither is enough alone. The
# artifacts alternate between two kinds (artifact_kind), so the two are of one kind or of two.
PAIRED_PLANTINGS = ("two_of_one_kind", "two_kinds")


def artifact_kind(number: int) -> str:
    """The kind of the bench's artifact `number` where pastes from two are planted."""
    return "skill" if number % 2 == 0 else "reference"


def pasted_from_two(first: str, second: str, rng: random.Random) -> str:
    def part(text: str) -> str:
        words = int(len(text.split()) * rng.uniform(0.6, 0.65))
        return renderings.word_slice(text, words=words, seed=rng.randrange(1 << 30))

    return part(first) + "\n\n" + part(second)


def paired_sources(rng: random.Random, count: int, how: str) -> tuple[int, int]:
    """Two artifact numbers under `count`, of one kind or of two as `how` says."""
    first = rng.randrange(count)
    while True:
        second = rng.randrange(count)
        if second != first and ((second - first) % 2 == 0) == (how == PAIRED_PLANTINGS[0]):
            return first, second


@dataclass
class Corpus:
    artifacts: list[str]
    records: list[str]
    planted: list[bool]  # per record: is it a copy of one of the artifacts?
    planting: list[str] = field(default_factory=list)

    @property
    def record_bytes(self) -> int:
        return sum(len(record.encode("utf-8")) for record in self.records)


def build_corpus(
    *, seed: int, n_artifacts: int, n_records: int, planted_share: float, paired: bool = False
) -> Corpus:
    """With `paired`, pastes from two artifacts are planted too (PAIRED_PLANTINGS)."""
    writer = Writer(seed)
    artifacts = [writer.skill(number) for number in range(n_artifacts)]
    records, planted, planting = [], [], []
    kinds = list(PLANTINGS) + (list(PAIRED_PLANTINGS) if paired else [])
    for number in range(n_records):
        if writer.rng.random() < planted_share:
            how = kinds[number % len(kinds)]
            # Copies only of the first 50 artifacts: they are in the index at every size.
            if how in PAIRED_PLANTINGS:
                first, second = paired_sources(writer.rng, 50, how)
                records.append(pasted_from_two(artifacts[first], artifacts[second], writer.rng))
            else:
                records.append(
                    PLANTINGS[how](artifacts[writer.rng.randrange(50)], writer.assistant_turn)
                )
            planted.append(True)
            planting.append(how)
        else:
            records.append(writer.assistant_turn())
            planted.append(False)
            planting.append("unrelated")
    return Corpus(artifacts, records, planted, planting)
