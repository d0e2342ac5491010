"""The compiled hot loops (filter/_speedups.c) against the pure-Python code they replace.

Each C function is compared with its Python reference on the same input: the character
classes with the re module's over every code point, the markup cut with the regexes, word
hashes with python-xxhash, shingles, index lookups, candidates and passages on random input
made to hit the edge cases (ties, repeats, boilerplate, more runs than MAX_RUNS). The rest of
tests/filter runs on both implementations (conftest.py).
"""

import random
import re

import numpy as np
import pytest
import xxhash
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from filter import ArtifactRecord, DerivedFilter, markup, normalise, speedups
from filter.align import MAX_GAP, align_many
from filter.index import ShingleIndex
from filter.normalise import word_bytes
from filter.shingles import batch_shingle_hashes, texts_shingles
from tests.texts import REFERENCE_NAMES, SKILL_NAMES, reference, skill


@pytest.fixture(autouse=True)
def implementation():
    """These tests run once, not once per implementation (conftest.py): they compare the two."""
    return "both"


@pytest.fixture
def compiled():
    if speedups.built is None:
        pytest.skip(f"the compiled matcher is not in use: {speedups.status}")
    return speedups.built


def both(function, *args, **kwargs):
    """function(*args, **kwargs) with the compiled module, then in pure Python."""
    with_c = function(*args, **kwargs)
    with speedups.pure_python():
        return with_c, function(*args, **kwargs)


def test_the_compiled_matcher_is_built_and_in_use():
    if speedups.PURE_PYTHON_ENV in speedups.status:
        pytest.skip(speedups.status)
    # `pip install -e .` (make, CI) and the wheel build it: a test run without it is a
    # broken build, not a slower one.
    assert speedups.built is not None, speedups.status
    assert speedups.status == "compiled (filter._speedups)"
    assert speedups.built.API == speedups.API


def test_the_variable_turns_the_compiled_module_off(monkeypatch):
    monkeypatch.setenv("POIMEN_PURE_PYTHON", "1")
    module, status = speedups._load()
    assert module is None
    assert "POIMEN_PURE_PYTHON" in status
    monkeypatch.setenv("POIMEN_PURE_PYTHON", "0")
    assert "POIMEN_PURE_PYTHON" not in speedups._load()[1]


def test_a_stale_build_is_not_used(monkeypatch):
    import sys
    import types

    stale = types.ModuleType("filter._speedups")
    stale.API = speedups.API - 1
    monkeypatch.delenv("POIMEN_PURE_PYTHON", raising=False)
    monkeypatch.setitem(sys.modules, "filter._speedups", stale)
    monkeypatch.setattr("filter._speedups", stale, raising=False)

    module, status = speedups._load()

    assert module is None
    assert "stale build" in status and "pip install -e ." in status


def test_pure_python_turns_it_off_for_a_while_only(compiled):
    with speedups.pure_python():
        assert speedups.compiled is None
    assert speedups.compiled is compiled


# -- words --------------------------------------------------------------------------------


def test_every_code_point_is_classed_as_the_re_module_classes_it(compiled):
    everything = "".join(map(chr, range(0x110000)))
    expected = bytearray(0x110000)
    for flag, pattern in [
        (1, r"[^\W_]"),  # what starts a word (filter/normalise.py's _UNICODE_WORD)
        (2, f"[{normalise._COMBINING}]"),  # the marks that may follow in one
        (4, r"\s"),  # the markup rules' whitespace
        (8, r"\d"),  # and digits
    ]:
        for found in re.finditer(pattern, everything):
            expected[found.start()] |= flag

    classes = compiled.char_classes()

    differ = [code for code in range(0x110000) if classes[code] != expected[code]]
    assert not differ, [(hex(code), classes[code], expected[code]) for code in differ[:20]]


# What markup is made of, and the characters that look like it and are not (other spaces,
# other digits, other line breaks).
MARKUP_PIECES = (
    list("ab Z9_.:)>-*+`~/<>\t\n\n\n")
    + [" ", "  ", "\u3000", "\xa0", "\x1c", "\x85", "\u2028", "\r", "\x0b", "\u200b"]
    + ["0", "12", "123456789", "1234567890", "\u0663", "\uff11", "\u00b2", "\U0001d7ce"]
    + ["→", "\t", ": ", ":", "1. ", "2) ", "10.", "- ", "* ", "+ ", "-", "> ", ">>", " > "]
    + ["```", "``", "````py", "~~~", "~~", "~~~ {.sh}", "```\n", "\n```"]
    + ["<", "</", "<a", "<b>", "</p>", '<a href="x">', "<br/>", "<br />", "<x-1 y>", "<1>"]
    + ["< a>", "<a\n>", "<a <b>", "<a/b>", "<a/ >", "<é>", "<aé>", "<a é>", "<A-Z9>"]
    + ["é", "e\u0301", "中文", "🚀", "Привет", "\n    7→", "\n12: ", "\n3\t", "\n- 2) "]
    # norm-v2: markup NFKC makes of other characters (fullwidth, small and halfwidth forms,
    # "⒈" is "1."), what it composes away ("<" and U+0338 are "≮"), times and "12:" lines
    + ["＜", "＞", "ｔｄ", "Ｂ", "／", "｀", "｀｀｀", "～～～", "．", "）", "：", "－", "＊", "＋"]
    + ["＜ｔｄ＞", "<ｂ>", "＜/ｐ＞", "﹤a﹥", "\uffeb", "１２", "⒈ ", "⑴", "\u0338", "\u2024"]
    + ["\n10:30", "\n3:1. ", "\n2-05", "\n12:x", "\n3:", "\n4：ｘ", "\n５： ", "\n\uff11\uff0e "]
    # norm-v3: the read shapes (docs/read-shapes.md) and what is almost one of them
    + ["a.md", "s/b", ".", "/", "a-b", "-12-", ":3:", ":4:5:", "x.md:", "-1", "1-", "\n7-"]
    + ["\nsrc/a.md:12:", "\na.md-3-", "\nb/c:1:2:", "\nx.y-z-9-", "\n.:1:", "\nv1.2:3"]
    + ["\n+", "+", "\n+1. ", "\n+```py", "│", " │ ", "\n  9 │ ", "\n 3 + │", "‾", "~", "_"]
    + ["\\", "\\n", "\\t", '\\"', "\\\\", "\\u00e9", "\\u12", "\\x", "n", "\\n1. "]
    + ["\\n```", "\\n3\\t", "\\nsrc/a.md:4:", "```x\\ny", "```\\\\n"]
    + ["&", "&lt;", "&gt;", "&amp;", "&quot;", "&#39;", "&#x27;", "&#12345678;", "&lt;p&gt;"]
    + ["&lt;/a&gt;", "&lt;br/&gt;", "&lt;a href=&quot;x&quot;&gt;", "&lt;a &amp; b&gt;", "&g"]
    + ["^", "^I", "^i", "^M$", "^M", "$", "\n4^I", "M-", "&#x", "&#"]
)


def test_the_markup_cut_is_the_regexes_on_random_text(compiled):
    rng = random.Random(2027)
    for _ in range(30_000):
        text = "".join(rng.choices(MARKUP_PIECES, k=rng.randint(0, 30)))
        with speedups.pure_python():
            expected = markup.cut_markup(text)
        assert compiled.strip_markup(text) == expected, repr(text)


def test_the_markup_cut_is_the_regexes_on_the_test_texts(compiled):
    texts = [skill(name) for name in SKILL_NAMES] + [reference(n) for n in REFERENCE_NAMES]
    for text in texts:
        with speedups.pure_python():
            expected = markup.cut_markup(text)
        assert compiled.strip_markup(text) == expected


# Words of every length xxh3 treats apart (0-16, 17-128, 129-240 and longer bytes), in every
# width a str is stored in.
WORD_PIECES = (
    ["a", "Ab", "zz9", "É", "ß", "ẞ", "中文", "한국어", "Привет", "🚀", "⚠️", "👍🏽", "e\u0301"]
    + ["x" * 17, "Y" * 100, "é" * 70, "中" * 50, "q" * 300, "\U0001d400" * 70]
    + [" ", "\n", ", ", "_", "—", "\u00ad", "\u200d", "<b>", "\n1. ", "\n```\n", "ﬁ", "½"]
    # marks NFKC leaves as they are: inside words, after symbols, astral
    + ["हिन्दी", "ภาษาไทย", "q\u0301", "\u0627\u064e", "x\u20e3", "\u0301", "\U0001d165"]
)


def assert_words_hashed_as_in_python(compiled, text):
    hashes, counts = compiled.text_shingles([text], 1, *normalise.COMPILED_NORMALISERS)
    with speedups.pure_python():
        words = word_bytes(text)
    assert np.frombuffer(hashes, dtype=np.uint64).tolist() == [
        xxhash.xxh3_64_intdigest(word) for word in words
    ], repr(text)
    assert np.frombuffer(counts, dtype=np.int64).tolist() == [len(words)]


def test_word_hashes_are_python_xxhash_of_each_word(compiled):
    rng = random.Random(7)
    for _ in range(3000):
        assert_words_hashed_as_in_python(
            compiled, "".join(rng.choices(WORD_PIECES, k=rng.randint(0, 20)))
        )


def test_a_word_ends_where_python_ends_it_at_every_place_in_a_block_of_eight(compiled):
    # The scan reads eight ASCII characters at a time: every ASCII character at every place
    # of the first two blocks, with the word running on to the text's end or not, in an
    # ASCII text and in the normalised code points of a text that is not ASCII.
    for code in range(128):
        for place in range(17):
            for tail in ("", "MNopq rs", "Tu"):
                for after in ("", " — ", " 🚀"):
                    text = "AbcdEfghIjklmnopqr"[:place] + chr(code) + tail + after
                    assert_words_hashed_as_in_python(compiled, text)


def test_shingles_are_the_pure_python_shingles(compiled):
    rng = random.Random(11)
    texts = [skill(name) for name in SKILL_NAMES] + [reference(n) for n in REFERENCE_NAMES]
    texts += ["".join(rng.choices(WORD_PIECES, k=rng.randint(0, 40))) for _ in range(500)]
    texts += ["", "one", "one two three four", "one two three four five"]
    for k in (1, 2, 5, 9):
        (shingles, firsts, counts), (expected, expected_firsts, expected_counts) = both(
            texts_shingles, texts, k
        )
        assert np.array_equal(shingles, expected)
        assert np.array_equal(firsts, expected_firsts)
        assert counts == expected_counts
        for text in texts[:8] + texts[-4:]:
            (one, _, (n,)), (expected_one, _, (expected_n,)) = both(texts_shingles, [text], k)
            assert np.array_equal(one, expected_one) and n == expected_n


def test_the_word_scan_refuses_what_is_not_text(compiled):
    normalisers = normalise.COMPILED_NORMALISERS
    with pytest.raises(TypeError, match="texts must be str"):
        compiled.text_shingles(["fine", b"bytes"], 5, *normalisers)
    with pytest.raises(ValueError, match="k must be at least 1"):
        compiled.text_shingles(["fine"], 0, *normalisers)
    with pytest.raises(TypeError, match="normalise must return str"):
        # a stretch that does not join (a mark at the start) sends the text whole
        compiled.text_shingles(["ok", "\u0301ok"], 5, normalisers[0], lambda text: None)


# -- the shingles of texts in one pass (text_shingles) -------------------------------------

# What the one pass meets in a batch: the words and markup above, the read shapes of
# docs/read-shapes.md whole, and pieces that do not join as they stand (a vowel jamo after a
# leading one, a halfwidth voiced mark, a mark at a text's start or after a symbol), which
# are normalised with the pieces around them or send their text to be normalised whole.
ONE_PASS_PIECES = (
    WORD_PIECES
    + MARKUP_PIECES
    + ["it", "Works", "lol", "ok", " — ", "→", "←", "café", "Ünïcode", "ẞ", "Straße"]
    + ["e\u0301", "\u00e9", "中文字", "ｗｏｒｄ", "＜ｂ＞", "＆ｌｔ；", "\u200b"]
    + ["\n     12→", "\n    3\t", "\n  12: ", "\nskills/a/SKILL.md:12:", "\na.md:4:5:"]
    + ["\nskills/a/SKILL.md-13-", "\n  12 │ ", "\n  7 ~ │ ", "\n+", "\n```python\n"]
    + ['"# Title\\n\\n1. step \\"x\\""', "&lt;details&gt;", "&amp;", "&#x27;", "^I", "^M$"]
    + ["ㅋ", "ㅜ", "ㅋㅜ", "ㅏ", "ｶ", "ﾞ", "ｶﾞ", "\u0301", "é\u0301", "Ä\u0323", "ǅ\u0301"]
    + ["\u1100\u1161", "\u1161", "\u0345", "\ufe0f", "x\u200d\u0301", "\U0001d165"]
    + ["ẞ\u0301", "ﬁ\u0301", "Å\u0301", "\u00ad\u0301", "—\u0301"]
)
ONE_PASS_TEXT = st.lists(
    st.one_of(st.sampled_from(ONE_PASS_PIECES), st.characters(codec="utf-8")), max_size=40
).map("".join)


def python_shingles(texts: list[str], k: int) -> tuple[list[int], list[int]]:
    """The reference: each text's words (word_bytes) and their shingles, in pure Python."""
    with speedups.pure_python():
        token_lists = [word_bytes(text) for text in texts]
        shingles, _ = batch_shingle_hashes(token_lists, k)
    return shingles.tolist(), [len(tokens) for tokens in token_lists]


def one_pass(compiled, texts: list[str], k: int) -> tuple[list[int], list[int]]:
    mixed, counts = compiled.text_shingles(texts, k, *normalise.COMPILED_NORMALISERS)
    return np.frombuffer(mixed, dtype=np.uint64).tolist(), memoryview(counts).cast("q").tolist()


@settings(
    max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(ONE_PASS_TEXT, min_size=1, max_size=8), st.integers(min_value=1, max_value=6))
def test_the_one_pass_is_the_python_reference(compiled, texts, k):
    assert one_pass(compiled, texts, k) == python_shingles(texts, k)


def test_the_one_pass_takes_a_batch_in_stretches(compiled):
    """A batch longer than a stretch of normalised text (FLUSH_AT) is hashed a stretch at a
    time, ASCII texts, texts normalised by pieces and texts normalised whole between."""
    rng = random.Random(13)
    texts = [skill(name) for name in SKILL_NAMES] + [reference(n) for n in REFERENCE_NAMES]
    texts += ["".join(rng.choices(ONE_PASS_PIECES, k=rng.randint(0, 400))) for _ in range(600)]
    texts += ["lol ㅋㅜ done " * 3000, "\u0301lol done " * 3000, "—" * 70_000, "plain " * 9000]
    texts += [""]
    rng.shuffle(texts)
    piece_form, _ = normalise.COMPILED_NORMALISERS
    assert compiled.normalised("\u0301lol done", piece_form) is None  # normalised whole
    assert compiled.normalised("lol ㅋㅜ done", piece_form) == "lol 쿠 done"  # by stretches
    for k in (1, 5):
        assert one_pass(compiled, texts, k) == python_shingles(texts, k)


# -- words with their offsets ------------------------------------------------------------

# What moves offsets: characters NFKC makes several of or none ("ﬁ", "½", "™"), casefolds that
# grow ("ß", "ẞ"), marks after ASCII letters and after other marks, invisible characters inside
# words and between a letter and its mark, astral characters, and markup to blank.
OFFSET_PIECES = (
    WORD_PIECES
    + MARKUP_PIECES
    + ["ﬁx", "™", "①", "Ⅻ", "㎏", "ǅ", "İ", "ŉ", "ΐ", "ﬀ", "Ω", "Å", "Å", "ǰ"]
    + ["á", "A­́", "e‍̈x", "́", "́̂", "ȫ"]
    + ["­ab", "a­", "﻿", "⁠x", "😀", "𠀀", "󠄀"]
    + ["x", "y9", "Q", "—", "…", "’s", " ", "\n", "\n\n", "\t"]
)


def test_the_markup_blanked_is_the_regex_on_random_text(compiled):
    rng = random.Random(2028)
    for _ in range(20_000):
        text = "".join(rng.choices(MARKUP_PIECES, k=rng.randint(0, 30)))
        with speedups.pure_python():
            expected = normalise.strip_markup(text)
        assert compiled.blank_markup(text, normalise._normalise) == expected, repr(text)


def test_words_with_offsets_are_the_pure_python_tokens_on_random_text(compiled):
    rng = random.Random(2029)
    for _ in range(20_000):
        text = "".join(rng.choices(OFFSET_PIECES, k=rng.randint(0, 30)))
        tokens, expected = both(normalise.tokenise, text)
        assert tokens == expected, repr(text)
        assert normalise.word_spans(text) == (expected.starts, expected.ends), repr(text)
        assert tokens.words == normalise.words(text), repr(text)


def test_the_words_of_markup_are_the_same_with_and_without_offsets(compiled):
    """The hot path cuts the markup from the normalised text, tokenise blanks it in the pieces
    it normalised: the same words, in C and in Python (norm-v2's rules read normalised text)."""
    rng = random.Random(2030)
    for _ in range(20_000):
        text = "".join(rng.choices(MARKUP_PIECES + WORD_PIECES, k=rng.randint(0, 30)))
        hashes, _ = compiled.text_shingles([text], 1, *normalise.COMPILED_NORMALISERS)
        with speedups.pure_python():
            words = normalise.words(text)
            assert normalise.tokenise(text).words == words, repr(text)
            assert word_bytes(text) == [word.encode() for word in words], repr(text)
        assert np.frombuffer(hashes, dtype=np.uint64).tolist() == [
            xxhash.xxh3_64_intdigest(word.encode()) for word in words
        ], repr(text)


def test_words_with_offsets_are_the_pure_python_tokens_on_the_test_texts(compiled):
    texts = [skill(name) for name in SKILL_NAMES] + [reference(n) for n in REFERENCE_NAMES]
    for text in texts:
        tokens, expected = both(normalise.tokenise, text)
        assert tokens == expected
        assert normalise.word_spans(text) == (expected.starts, expected.ends)


def test_words_with_offsets_refuse_what_is_not_text(compiled):
    with pytest.raises(TypeError, match="text must be str"):
        compiled.word_spans(b"bytes", normalise._normalise, True)
    with pytest.raises(TypeError, match="normalise must return str"):
        compiled.word_spans("caf\u00e9", lambda piece: None, True)


# -- the index, candidates and passages -----------------------------------------------------


def random_index(rng) -> tuple[ShingleIndex, list[np.ndarray]]:
    """An index small enough for slots to hold several hashes, with boilerplate (hashes in
    many artifacts) and repeats within one artifact."""
    pool = np.array([rng.getrandbits(64) for _ in range(3000)], dtype=np.uint64)
    # the ends of the range, and neighbours: where a search's bounds go wrong
    pool[40:44] = [0, 1, 2**64 - 2, 2**64 - 1]
    pool[44:50] = pool[50] + np.arange(1, 7, dtype=np.uint64)
    boilerplate = pool[:40]
    index, texts = ShingleIndex(), []
    for number in range(120):
        shingles = pool[[rng.randrange(len(pool)) for _ in range(rng.randint(0, 150))]]
        if number % 3 == 0:
            shingles = np.concatenate([shingles, boilerplate[: rng.randint(1, 40)]])
        index.add(number, shingles)
        texts.append(shingles)
    return index, texts


def _arrays(found) -> list[np.ndarray]:
    """A distinctive lookup's anchors and what it left out, as arrays."""
    *anchors, left_out = found
    return [*anchors, left_out.positions, left_out.starts, left_out.counts]


def test_lookups_are_the_numpy_lookups(compiled):
    rng = random.Random(5)
    for _ in range(20):
        index, texts = random_index(rng)
        query = np.concatenate(
            [
                texts[rng.randrange(len(texts))],
                np.array([rng.getrandbits(64) for _ in range(200)], dtype=np.uint64),
                texts[rng.randrange(len(texts))][::-1],
                np.array([0, 1, 2**64 - 1], dtype=np.uint64),
            ]
        )
        for max_run in (None, 0, 1, 3, 16):
            found, expected = both(index.lookup_distinctive, query, max_run=max_run)
            for got, want in zip(_arrays(found), _arrays(expected), strict=True):
                assert got.dtype == want.dtype == np.uint32
                assert np.array_equal(got, want), max_run
        # artifacts added to an index in use (merged into its arrays, the directory updated)
        for number in range(120, 126):
            index.add(number, query[200 : 200 + rng.randint(1, 30)])
        for max_run in (None, 16):
            found, expected = both(index.lookup_distinctive, query, max_run=max_run)
            assert all(
                np.array_equal(a, b) for a, b in zip(_arrays(found), _arrays(expected), strict=True)
            )
        assert set(found[1].tolist()) >= set(range(120, 126))
        empty, expected = both(index.lookup, np.empty(0, dtype=np.uint64))
        assert all(len(a) == 0 for a in empty + expected)


def test_candidates_are_the_numpy_candidates(compiled):
    rng = random.Random(3)
    derived_filter = DerivedFilter(min_shared={"a": 3, "b": 1}, default_min_shared=5)
    for number in range(300):
        text = " ".join(f"w{rng.randrange(400)}" for _ in range(rng.randint(5, 200)))
        derived_filter.add(
            ArtifactRecord.from_text(kind="abc"[number % 3], name=f"{number}", text=text)
        )
    for _ in range(200):
        n_records = rng.randint(1, 6)
        size = rng.randint(0, 400)
        if rng.random() < 0.15:  # a batch's worth: sorted by digits, not compared
            n_records, size = rng.randint(1, 3000), rng.randint(4096, 9000)
        owner = np.sort(np.array([rng.randrange(n_records) for _ in range(size)], dtype=np.int64))
        if rng.random() < 0.2:
            owner = owner[::-1].copy()  # not in record order
        artifact_no = np.array([rng.randrange(300) for _ in range(size)], dtype=np.uint32)
        artifact_no[: size // 2] = artifact_no[0] if size else 0  # many anchors on one
        n_tokens = [rng.randint(0, 300) for _ in range(n_records)]
        if n_records == 1 and rng.random() < 0.5:
            owner = None  # one record's anchors, as check() asks

        def candidates(owner=owner, artifact_no=artifact_no, n_tokens=n_tokens):
            return list(derived_filter._candidates(owner, artifact_no, n_tokens))

        with_c, expected = both(candidates)
        assert with_c == expected


def random_anchors(rng) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """One record's anchors with several artifacts: copies along diagonals with changed,
    inserted and deleted words, echoes of a repeated phrase, chance hits, equal runs."""
    record, artifact, number = [], [], []
    numbers = rng.sample(range(50), rng.randint(1, 5))
    for artifact_number in numbers:
        i, j = rng.randrange(0, 500), rng.randrange(0, 500)
        for _ in range(rng.randint(0, 6)):  # stretches of copy
            for _ in range(rng.randint(1, 60)):
                if rng.random() < 0.85:
                    record.append(i)
                    artifact.append(j)
                    number.append(artifact_number)
                step = rng.choice([1, 1, 1, 1, 2, 6, 13, 30])
                i, j = i + step, j + step + rng.choice([0, 0, 0, 0, 1, -1])
            i, j = i + rng.randrange(0, 40), j + rng.randrange(-20, 40)
        for _ in range(rng.choice([0, 0, 3])):  # a phrase the artifact holds several times
            i, j = i + rng.randrange(1, 20), j + rng.randrange(1, 20)
            length = rng.randint(3, 8)
            for echo in [0] + rng.sample(range(100, 2000, 50), rng.randint(1, 4)):
                for step in range(length):
                    record.append(i + step)
                    artifact.append(j + echo + step)
                    number.append(artifact_number)
            i, j = i + length, j + length
        for _ in range(rng.randint(0, 30)):  # chance hits and echoes
            record.append(rng.randrange(0, 900))
            artifact.append(rng.randrange(0, 900))
            number.append(artifact_number)
    if rng.random() < 0.3:
        numbers.append(99)  # a number with no anchors
    pairs = sorted({(i, j, n) for i, j, n in zip(record, artifact, number, strict=True) if j >= 0})
    if rng.random() < 0.3:
        rng.shuffle(pairs)  # not in record order
    as_array = lambda column, dtype: np.array([p[column] for p in pairs], dtype=dtype)  # noqa: E731
    return as_array(0, np.uint32), as_array(2, np.uint32), as_array(1, np.uint32), numbers


def test_passages_are_the_pure_python_passages(compiled):
    rng = random.Random(13)
    for _ in range(600):
        record_pos, artifact_no, artifact_pos, numbers = random_anchors(rng)
        k = rng.choice([1, 5, 8])
        with_c, expected = both(align_many, record_pos, artifact_no, artifact_pos, numbers, k)
        assert with_c == expected
        # int64 positions (check_many's record positions are shifted to the record's own)
        wide = align_many(record_pos.astype(np.int64), artifact_no, artifact_pos, numbers, k)
        assert wide == expected


def test_passages_beyond_max_runs_are_the_pure_python_passages(compiled):
    """A pathological record (one phrase repeated thousands of times) keeps only the longest
    MAX_RUNS runs, the first of equals, in both."""
    rng = random.Random(17)
    for _ in range(1):
        record_pos, artifact_pos = [], []
        for run in range(2600):
            length = rng.choice([3, 3, 3, 4])  # the cut falls among runs of 3: passages
            i, j = run * 40, rng.randrange(0, 50_000)
            for step in range(length):
                record_pos.append(i + step)
                artifact_pos.append(j + step)
        record_pos = np.array(record_pos, dtype=np.uint32)
        artifact_pos = np.array(artifact_pos, dtype=np.uint32)
        artifact_no = np.zeros(len(record_pos), dtype=np.uint32)
        with_c, expected = both(align_many, record_pos, artifact_no, artifact_pos, [0], 5)
        assert with_c == expected and expected[0]


def test_passages_refuse_arrays_that_do_not_fit(compiled):
    anchors = np.arange(5, dtype=np.uint32)
    with pytest.raises(ValueError, match="differ in length"):
        compiled.align_many(anchors, anchors[:4], anchors, [0], 5, MAX_GAP, 3, 24, 2000)
    with pytest.raises(TypeError, match="32- or 64-bit integers"):
        compiled.align_many(anchors.astype(np.float64), anchors, anchors, [0], 5, 12, 3, 24, 9)
