"""Hypothesis strategies for the guarantee's property tests: records made of 0 to 3 artifacts'
passages of random sizes in random shapes (tests/renderings.py), mixed with genuine text,
quoted sentences and mentions, as agents' transcripts mix them."""

import random

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests import renderings
from tests.texts import REFERENCE_NAMES, SKILL_NAMES, reference, skill, turn

# The artifacts a test registers (kind, name, text), and genuine turns (none of them copies).
ARTIFACTS = [("skill", name, skill(name)) for name in SKILL_NAMES] + [
    ("reference", name, reference(name)) for name in REFERENCE_NAMES
]
GENUINE = [turn(name) for name in ("unrelated-asyncio", "unrelated-query-plan")]

# The shapes a copied passage is shown in: the models' and the tools' (tests/renderings.py).
SHAPES = {
    "as is": lambda text, seed: text,
    "reindented": lambda text, seed: renderings.reindent(text),
    "fenced": lambda text, seed: renderings.wrap_in_fences(text),
    "quoted": lambda text, seed: renderings.quote(text),
    "rewrapped": lambda text, seed: renderings.rewrap(text),
    "read tool": lambda text, seed: renderings.read_tool_gutter(text),
    "cat -n": lambda text, seed: renderings.cat_n_gutter(text),
    "smart quotes": lambda text, seed: renderings.smart_quotes(text),
    "edited": lambda text, seed: renderings.edit_words_at_random(text, rate=0.08, seed=seed),
}


def _words(text: str) -> int:
    return len(text.split())


@st.composite
def passages(draw):
    """A stretch of an artifact (a few words to all of it) in one of SHAPES."""
    kind, name, text = draw(st.sampled_from(ARTIFACTS))
    total = _words(text)
    size = draw(st.one_of(st.integers(8, 40), st.integers(40, 160), st.just(total)))
    seed = draw(st.integers(0, 10_000))
    stretch = text if size >= total - 1 else renderings.word_slice(text, words=size, seed=seed)
    shape = draw(st.sampled_from(sorted(SHAPES)))
    return SHAPES[shape](stretch, seed)


@st.composite
def genuine(draw):
    """A stretch of a genuine turn."""
    text = draw(st.sampled_from(GENUINE))
    words = draw(st.integers(15, min(200, _words(text) - 2)))
    return renderings.word_slice(text, words=words, seed=draw(st.integers(0, 10_000)))


@st.composite
def quotes(draw):
    """One sentence of an artifact quoted in a discussion."""
    _, name, text = draw(st.sampled_from(ARTIFACTS))
    words = draw(st.integers(6, 20))
    sentence = renderings.word_slice(text, words=words, seed=draw(st.integers(0, 10_000)))
    return f'The {name} page says "{sentence}", which I think holds here.'


@st.composite
def mentions(draw):
    kind, name, _ = draw(st.sampled_from(ARTIFACTS))
    return f"Use the {name} {kind} for this one, as we agreed on Tuesday."


@st.composite
def records(draw):
    """A record: up to three copied passages among genuine text, quotes and mentions (or
    passages alone: a whole copy)."""
    pieces = draw(st.lists(passages(), max_size=3))
    others = st.one_of(genuine(), quotes(), mentions())
    pieces += draw(st.lists(others, min_size=0 if pieces else 1, max_size=4))
    random.Random(draw(st.integers(0, 10_000))).shuffle(pieces)
    return "\n\n".join(pieces)


def on_the_database(max_examples: int):
    """Hypothesis settings for a property whose examples go through the database: no deadline
    (a refilter or an ingest takes what it takes), and the health checks that a function-scoped
    fixture, a slow example or a large record would trip are off."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
        ],
    )
