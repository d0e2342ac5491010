"""The normaliser (filter/normalise.py): which words a text has and where each one is.

No database. The texts are the acceptance suite's (tests/texts/), so a unit that breaks here
shows up on the same words as the card's tests (docs/card.md).
"""

import unicodedata

import pytest

from filter import tokenise
from tests import renderings
from tests.factories import normalised
from tests.texts import SKILL_NAMES, skill


@pytest.mark.parametrize(
    ("marked_up", "expected"),
    [
        ("```python\nprint(total)\n```", ["print", "total"]),
        ("````markdown\nkeep going\n````", ["keep", "going"]),
        ("~~~ {.sh}\nmake test\n~~~", ["make", "test"]),
        ("## Running the tests", ["running", "the", "tests"]),
        ("Running\n=======", ["running"]),
        ("> > Keep it short", ["keep", "it", "short"]),
        ("- one\n* two\n+ three\n• four", ["one", "two", "three", "four"]),
        ("1. Install it\n2) Run it\n10. Done", ["install", "it", "run", "it", "done"]),
        ("   1. Install it\n> 2. Run it", ["install", "it", "run", "it"]),
        ("     1→Install it\n     2→Run it", ["install", "it", "run", "it"]),
        ("     1\tInstall it\n     2\tRun it", ["install", "it", "run", "it"]),
        ("12: Install it\n13: Run it", ["install", "it", "run", "it"]),
        ("     3→1. Install it\n     4→> ```bash\n     5→> make", ["install", "it", "make"]),
        (
            "| Option | Meaning |\n|---|---|\n| `-x` | stop at first failure |",
            ["option", "meaning", "x", "stop", "at", "first", "failure"],
        ),
        ("**Never** _skip_ *this* __step__ ~~now~~", ["never", "skip", "this", "step", "now"]),
        ("Run `pytest -x` now", ["run", "pytest", "x", "now"]),
        (
            "<details><summary>Setup</summary>Run <code>make</code><br/></details>",
            ["setup", "run", "make"],
        ),
        ('<a href="https://example.com/docs" title="docs">the docs</a>', ["the", "docs"]),
        ("press <kbd>Ctrl</kbd>+<kbd>C</kbd> to stop", ["press", "ctrl", "c", "to", "stop"]),
    ],
    ids=[
        "fence_with_info_string",
        "four_backtick_fence",
        "tilde_fence",
        "heading",
        "setext_heading",
        "nested_blockquote",
        "bullets",
        "list_numbers",
        "indented_and_quoted_list_numbers",
        "read_tool_gutter",
        "cat_n_gutter",
        "colon_gutter",
        "gutter_then_list_number_quote_and_fence",
        "table_pipes",
        "emphasis",
        "inline_code",
        "html_tags",
        "html_attributes",
        "html_inline_in_a_sentence",
    ],
)
def test_markup_that_carries_no_words_is_dropped(marked_up, expected):
    assert tokenise(marked_up).words == expected


@pytest.mark.parametrize(
    ("marked_up", "expected"),
    [
        ("＜ｔｄ ａｌｉｇｎ＝＂ｒｉｇｈｔ＂＞0.3＜／ｔｄ＞", ["0", "3"]),
        ("<ｂ>bold</ｂ> and ﹤i﹥small﹤/i﹥", ["bold", "and", "small"]),
        ("｀｀｀ｐｙｔｈｏｎ\nprint(total)\n～～～", ["print", "total"]),
        ("１． Install it\n２） Run it", ["install", "it", "run", "it"]),
        ("＞　＊　3. Install it", ["install", "it"]),
        ("１２：　Install it\n　　７￫Run it", ["install", "it", "run", "it"]),
        ("⒈ Install it", ["install", "it"]),  # NFKC: "1." and a space
    ],
    ids=["tag", "letters_and_small_forms", "fence", "list_numbers", "quote_bullet", "gutters", "⒈"],
)
def test_markup_is_what_nfkc_makes_of_it(marked_up, expected):
    assert tokenise(marked_up).words == expected


def test_a_time_or_a_date_at_a_line_start_is_not_a_gutter():
    # norm-v3: "4:the" is grep -n's gutter (and Claude Code's Grep's), "5-" its context line's
    text = "10:30 stand-up\n12:00\n  3: the gutter\n4:the same\n5-and\n2024-01-15 x"
    assert tokenise(text).words == [
        "10", "30", "stand", "up", "12", "00", "the", "gutter", "the", "same", "and",
        "2024", "01", "15", "x",
    ]  # fmt: skip


def test_fullwidth_markup_is_blanked_where_it_stands():
    from filter.normalise import strip_markup

    text = "a ＜ｂ＞word＜／ｂ＞ here"
    tokens = tokenise(text)
    assert strip_markup(text) == "a " + " " * 3 + "word" + " " * 4 + " here"
    assert [text[s:e] for s, e in zip(tokens.starts, tokens.ends, strict=True)] == [
        "a", "word", "here",
    ]  # fmt: skip


def test_numbers_in_prose_are_words():
    assert tokenise("Python 3 runs 12 workers\n2024 was slow").words == [
        "python", "3", "runs", "12", "workers", "2024", "was", "slow",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("variant", "plain"),
    [
        ("Straße", "STRASSE"),
        ("ｐｙｔｅｓｔ ＤＪＡＮＧＯ", "pytest django"),
        ("conﬁg ﬂaky eﬃcient", "config flaky efficient"),
        ("cafe\u0301", "café"),
        ("run\u00a0the\u202ftests\u3000now", "run the tests now"),
        ("don’t “quote” me", 'don\'t "quote" me'),
        ("con\u200bfig", "config"),
        ("x² H₂O", "x2 H2O"),
    ],
    ids=[
        "casefold",
        "fullwidth",
        "ligatures",
        "combining_accent",
        "no_break_spaces",
        "smart_quotes",
        "zero_width_space",
        "super_and_subscripts",
    ],
)
def test_unicode_variants_give_the_same_words(variant, plain):
    assert tokenise(variant).words == tokenise(plain).words


@pytest.mark.parametrize(
    "text",
    [
        "1.\u00a0Install the test dependencies",
        "2)\u202fRun the whole suite once",
        "Wait ½ a second between retries",
        "The Slack™ integration posts the result",
    ],
    ids=["no_break_space_after_list_number", "narrow_space_after_list_number", "fraction", "tm"],
)
def test_words_do_not_depend_on_whether_the_text_was_nfkc_normalised_first(text):
    # The normaliser promises NFKC: a copy that went through NFKC on the way is the same text.
    assert tokenise(text).words == tokenise(unicodedata.normalize("NFKC", text)).words


OFFSET_RENDERINGS = {
    "plain": lambda text: text,
    "quoted_crlf": lambda text: renderings.crlf(renderings.quote(text)),
    "read_tool_gutter": renderings.read_tool_gutter,
    "cat_n_gutter": renderings.cat_n_gutter,
    "fullwidth": renderings.fullwidth_letters,
    "ligatures": renderings.ligatures,
    "no_break_spaces": renderings.non_breaking_spaces,
    "html": renderings.render_html,
}


@pytest.mark.parametrize("rendering", OFFSET_RENDERINGS)
@pytest.mark.parametrize("name", SKILL_NAMES)
def test_token_offsets_point_at_the_word_in_the_original_text(name, rendering):
    text = OFFSET_RENDERINGS[rendering](skill(name))

    tokens = tokenise(text)

    assert len(tokens.words) == len(tokens.starts) == len(tokens.ends) > 300
    assert [
        normalised(text[start:end]) for start, end in zip(tokens.starts, tokens.ends, strict=True)
    ] == (tokens.words)


def test_token_offsets_of_a_gutter_line_skip_the_gutter():
    text = "     7→## Keep **the** database\r\n     8→- between `runs`"

    tokens = tokenise(text)

    assert tokens.words == ["keep", "the", "database", "between", "runs"]
    assert [text[s:e] for s, e in zip(tokens.starts, tokens.ends, strict=True)] == [
        "Keep", "the", "database", "between", "runs",
    ]  # fmt: skip


RENDERINGS_THAT_KEEP_EVERY_WORD = {
    "other_whitespace": renderings.other_whitespace,
    "reindented": renderings.reindent,
    "wrapped_in_fences": renderings.wrap_in_fences,
    "fences_removed": renderings.remove_fences,
    "bullets_to_star": lambda text: renderings.change_bullets(text, "*"),
    "bullets_to_numbers": lambda text: renderings.change_bullets(text, "1."),
    "rewrapped": renderings.rewrap,
    "quoted": renderings.quote,
    "crlf_line_ends": renderings.crlf,
    "smart_quotes": renderings.smart_quotes,
    "fullwidth_letters": renderings.fullwidth_letters,
    "non_breaking_spaces": renderings.non_breaking_spaces,
    "ligatures": renderings.ligatures,
    "read_tool_gutter": renderings.read_tool_gutter,
    "cat_n_gutter": renderings.cat_n_gutter,
    "rendered_as_html": renderings.render_html,
}


@pytest.mark.parametrize("rendering", RENDERINGS_THAT_KEEP_EVERY_WORD)
@pytest.mark.parametrize("name", SKILL_NAMES)
def test_a_rerendered_skill_has_exactly_the_words_of_the_original(name, rendering):
    original = skill(name)

    rendered = RENDERINGS_THAT_KEEP_EVERY_WORD[rendering](original)

    assert tokenise(rendered).words == tokenise(original).words


def test_words_and_tokenise_agree_on_random_unicode_text():
    import random

    from filter.normalise import word_bytes, words
    from filter.shingles import texts_shingles, token_hashes

    rng = random.Random(2026)
    planes = list(range(0x20, 0x7F)) * 3 + list(range(0xA0, 0x3000)) + list(range(0xFF00, 0xFF60))
    pool = [chr(code) for code in planes] + ["\n"] * 40 + ["\u200b", "e\u0301", "1. ", "```"]
    for _ in range(3000):
        text = "".join(rng.choices(pool, k=rng.randint(0, 40)))
        tokens = tokenise(text)
        assert tokens.words == words(text), repr(text)
        assert [word.encode() for word in tokens.words] == word_bytes(text), repr(text)
        # the hot path's words, in C or not (tests/filter/conftest.py): as hashes
        assert texts_shingles([text], 1)[0].tolist() == token_hashes(tokens.words).tolist()


def test_words_and_tokenise_agree_on_the_non_ascii_real_text_holds():
    """The words-only path takes shortcuts (no mark joins a word, nothing to drop, nothing to
    normalise twice); on text made of what real text holds — emoji with their variation
    selectors, keycaps, marks after letters and after symbols, astral marks, invisible
    characters, letters whose casefold needs NFKC again — it finds what tokenise finds."""
    import random

    from filter.normalise import word_bytes, words
    from filter.shingles import texts_shingles, token_hashes

    rng = random.Random(13)
    pool = (
        list("abcxyz019_ ")
        + list("éñßẞﬁ½™ａｂ１")
        + ["中文", "日本語", "한국어", "Привет", "مرحبا", "हिन्दी", "ภาษาไทย"]
        + ["⚠️", "⭐️", "1️⃣", "👍🏽", "🚀", "👩‍💻", "→", "—", "“", "”", "•"]
        + ["\u0301", "\u0308", "\ufe0f", "\u20e3", "\u064e", "\u0947", "\u0e34"]
        + ["\U0001d165", "\U00011001", "\U000e0100", "\U0001f3fb"]
        + ["\u00ad", "\u200b", "\u200d", "\u2060", "\ufeff", "\n", "\n1. ", "\n```py\n", "<b>"]
        + ["<a", 'href="x">', "</p>", "\n12: ", "\n12:", "\n    7→", "\n3\t", "\n> ", "\n- 2) "]
        + ["\u1100", "\u1161", "\u11a8", "\ud7b0"]
    )
    for _ in range(4000):
        text = "".join(rng.choices(pool, k=rng.randint(0, 30)))
        tokens = tokenise(text)
        assert tokens.words == words(text), repr(text)
        assert [word.encode() for word in tokens.words] == word_bytes(text), repr(text)
        # the hot path's words, in C or not (tests/filter/conftest.py): as hashes
        assert texts_shingles([text], 1)[0].tolist() == token_hashes(tokens.words).tolist()
