"""The normalised text made piece by piece from a cache (filter/normalise.py's _normalised,
filter/_speedups.c's normalised) is _normalise's whole-text one, character for character.

No database. Run with the compiled module and without (tests/filter/conftest.py): without it
the whole-text path is the only one, and the property holds trivially.
"""

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from filter import speedups
from filter.normalise import (
    APART,
    JOINS,
    JOINS_AFTER_ASCII,
    _joins_at,
    _normalise,
    _normalised,
    _piece_form,
    word_bytes,
)

# What real text holds, and what makes a piece's form unable to follow what precedes it:
# compatibility jamo NFKC joins into one syllable ("ㅋㅜ" is "쿠"), the halfwidth voiced mark
# NFKC makes a combining one ("ｶﾞ" is "ガ"), marks after symbols, at the start, after
# invisible characters.
_PIECES = (
    list("abcXYZ019_ .,:-\n\t<>&;")
    + list("éÉñßẞﬁ½™ａＢ１—–→←“”‘’•…€©°×")
    + ["中文", "日本語", "한국어", "Привет", "ΣΑΣ", "مرحبا", "हिन्दी", "ภาษาไทย"]
    + ["⚠️", "1️⃣", "👍🏽", "👩‍💻", "İ", "ǅ", "ŉ", "ǰ", "ᾳ", "ᾼ", "ﬀ"]
    + ["ㅋ", "ㅜ", "ㅏ", "ㄱ", "ｶ", "ﾞ", "ﾟ", "ﾊ", "\u3099", "\u309a"]
    + ["\u0301", "\u0308", "\u0345", "\ufe0f", "\u20e3", "\u0947", "\u0e34", "\u0bbe"]
    + ["\u1100", "\u1161", "\u11a8", "\ud7b0", "\ua960", "\U0001d165", "\U00011001"]
    + ["\u00ad", "\u200b", "\u200d", "\u2060", "\ufeff", "\n1. ", "```py\n", "&lt;b&gt;"]
)
_TEXT = st.lists(
    st.one_of(st.sampled_from(_PIECES), st.characters(codec="utf-8")), min_size=1, max_size=60
).map("".join)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_the_cached_path_is_the_whole_text_path(text):
    assert _normalised(text) == _normalise(text)
    # twice: the second reads every piece from the cache
    assert _normalised(text) == _normalise(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=5))
def test_the_hot_paths_words_are_the_whole_text_paths(texts):
    from filter.markup import cut_markup
    from filter.normalise import _non_ascii_words

    for text in texts:
        if text.isascii():
            continue
        whole = _non_ascii_words(cut_markup(_normalise(text)))
        assert word_bytes(text) == [word.encode() for word in whole]


def test_a_piece_that_does_not_join_is_normalised_with_its_neighbours():
    # "ㅜ" is a vowel jamo under NFKC: it joins the "ㅋ" before it into one syllable, never
    # an ASCII character
    assert _piece_form("ㅜ") == ("\u116e", JOINS_AFTER_ASCII)
    assert _piece_form("ㅋㅜ") == ("쿠", JOINS)
    assert _piece_form("\u0301") == ("\u0301", APART)
    for text in ("lol ㅋㅜ done", "ㅜㅜ sad", "ok, ㅜㅜ", "x ㅋㅋㅜ, ㅏ"):
        assert _normalised(text) == _normalise(text)
        if speedups.compiled is not None:  # by pieces, the stretch between spaces as one
            assert speedups.compiled.normalised(text, _piece_form) == _normalise(text)
    assert _normalised("lol ㅋㅜ done") == "lol 쿠 done"
    if speedups.compiled is not None:
        # a stretch whose head is a mark sends the text whole (it could reach back)
        assert speedups.compiled.normalised("\u0301 x", _piece_form) is None
        assert speedups.compiled.normalised("it — works → Ünïcode", _piece_form) == (
            "it — works → ünïcode"
        )


def test_every_character_that_composes_second_is_one_a_piece_does_not_start_with():
    """_joins_at's premise, for this Python's Unicode: canonical composition joins a
    character to the one before it only where the second is a mark or a Hangul vowel or
    final jamo (the syllables compose by rule, not from the table)."""
    seconds = set()
    for code in range(0x110000):
        decomposition = unicodedata.decomposition(chr(code))
        if decomposition and not decomposition.startswith("<"):
            parts = decomposition.split()
            if len(parts) == 2:
                seconds.add(chr(int(parts[1], 16)))
    seconds.update(chr(code) for code in range(0x1161, 0x1176))
    seconds.update(chr(code) for code in range(0x11A8, 0x11C3))
    assert seconds
    assert not [hex(ord(c)) for c in seconds if _joins_at(c)]
