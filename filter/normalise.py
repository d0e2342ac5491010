"""Normalisation and tokenisation: text -> word tokens that keep their place in the original.

A text is normalised first (NFKC, casefold), and the markup rules read the normalised text:
markup typed in other forms of the same characters (fullwidth `＜ｔｄ＞`, `１．`, `｀｀｀`)
is the markup NFKC makes of it, and is cut as its ASCII form is. Markup that carries no words
is blanked (replaced by as many spaces), and every token keeps the character offsets of the
original text, so a match can be highlighted where it stands. What counts as a word is then a
run of letters and digits; punctuation, bullets, heading and quote marks, table pipes and
emphasis marks fall away between words by themselves. Only the markup that would otherwise
leave words or numbers behind needs a rule of its own.

Bump NORMALISER_VERSION whenever the tokens this module produces for some text change: the
version travels with every stored shingle list, and lists made under another version are
re-shingled or refused, never compared.
"""

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass
from typing import NamedTuple

from filter import speedups
from filter.markup import MARKUP, blanked, cut_markup

# norm-v3: the read shapes (docs/read-shapes.md): a path before every line ("rg -n", "grep
# -Hn", grep's context lines, Claude Code's Grep tool), a bare line number ("12:", "12-"), a
# diff's "+", bat's "│" gutter, a file inside a JSON string (escapes, the escaped line break a
# line start), HTML-escaped text and "cat -A"'s "^I". norm-v2 made the markup rules read the
# normalised text; norm-v1 read it as written. filter/shingles.py says which older versions'
# shingles can still be read.
NORMALISER_VERSION = "norm-v3"


# ASCII text (the common case) is lower-cased in one go; no offset can move. The hot path
# finds the words as bytes, which is what they are hashed as.
_ASCII_WORD = re.compile(r"[^\W_]+", re.ASCII)
_ASCII_WORD_BYTES = re.compile(rb"[a-z0-9]+")
# Other text is normalised first (NFKC, casefold) and split after, as NFKC may make words of
# what was not ("½" is "1⁄2", "™" is "TM"). A word may carry combining marks.


def _mark_ranges(first: int, last: int) -> list[tuple[int, int]]:
    """The ranges of combining marks (categories Mn, Mc, Me) from `first` to `last`."""
    ranges, start, previous = [], None, None
    for code in range(first, last + 1):
        if unicodedata.category(chr(code)) in ("Mn", "Mc", "Me"):
            if start is None or code != previous + 1:
                if start is not None:
                    ranges.append((start, previous))
                start = code
            previous = code
    if start is not None:
        ranges.append((start, previous))
    return ranges


def _class_body(ranges: list[tuple[int, int]]) -> str:
    return "".join(f"{chr(a)}-{chr(b)}" if a != b else chr(a) for a, b in ranges)


# Every combining mark in the first two planes, and the Hangul vowel and final jamo that NFKC
# joins to a leading one.
_BMP_MARKS = _mark_ranges(0x300, 0xFFFF) + [(0x1160, 0x11FF), (0xD7B0, 0xD7FF)]
_ASTRAL_MARKS = _mark_ranges(0x10000, 0x1FFFF) + [(0xE0100, 0xE01EF)]
_COMBINING = _class_body(_BMP_MARKS + _ASTRAL_MARKS)
_UNICODE_WORD = re.compile(rf"[^\W_](?:[^\W_]|[{_COMBINING}])*")
# A mark joins a word only straight after a letter or digit (or another mark so joined). Text
# where none does (most text once NFKC has composed it; the variation selector after an emoji,
# "⚠️", is not after a letter) has plain words, which a simple class finds several times
# faster. A class of the first plane's marks alone is searched fast too; characters beyond it
# are few, and looked up one by one.
_PLAIN_WORD = re.compile(r"[^\W_]+")
_BMP_MARK = re.compile(f"[{_class_body(_BMP_MARKS)}]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_ASTRAL_MARK_CODES = frozenset(
    code for first, last in _ASTRAL_MARKS for code in range(first, last + 1)
)
# The compiled word scan (filter/_speedups.c) tests letters and digits as the regex does, and
# takes its marks from here.
if speedups.built is not None:
    speedups.built.set_marks(_BMP_MARKS + _ASTRAL_MARKS)


def _after_a_letter(text: str, at: int) -> bool:
    before = text[at - 1 : at]
    return before.isalnum() and before != "_"


def _marks_join_words(text: str) -> bool:
    """Whether some combining mark in `text` follows a letter or digit."""
    for found in _BMP_MARK.finditer(text):
        if _after_a_letter(text, found.start()):
            return True
    for found in _ASTRAL.finditer(text):
        if ord(found.group()) in _ASTRAL_MARK_CODES and _after_a_letter(text, found.start()):
            return True
    return False


# Invisible characters that must not split a word: soft hyphen, zero-width space and joiners,
# word joiner, BOM.
_INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_DROP_INVISIBLE = str.maketrans("", "", _INVISIBLE)
# What NFKC may join is a character and the combining marks after it (once invisible
# characters between them are gone). For offsets, each non-ASCII character with its marks, and
# an ASCII letter a mark joins, is a piece of its own that maps back onto where it stood; the
# words alone come from normalising the whole text, which gives the same words.
_NON_ASCII_CHAR = re.compile(
    rf"(?:[\x00-\x7f](?=[{_INVISIBLE}]*[{_COMBINING}]))?[^\x00-\x7f][{_COMBINING}{_INVISIBLE}]*"
)


@dataclass(frozen=True, slots=True)
class Tokens:
    """The words of a text, normalised, with their character offsets in the original."""

    words: list[str]
    starts: list[int]
    ends: list[int]

    def __len__(self) -> int:
        return len(self.words)


class WordSpans(NamedTuple):
    """Where each word of a text starts and ends, as Tokens has them."""

    starts: list[int]
    ends: list[int]


def strip_markup(text: str) -> str:
    """`text` with wordless markup replaced by spaces: same length, same offsets. The markup
    is what the rules find in the normalised text; where a match covers part of what one
    character (with its marks) normalises to, the whole character is blanked. In C where it
    is built."""
    compiled = speedups.compiled
    if compiled is not None:
        return compiled.blank_markup(text, _normalise)
    if text.isascii():
        return blanked(text)
    normalised, pieces = _normalise_with_offsets(text)
    original = _original_offsets(pieces)
    out, done = [], 0
    for found in MARKUP.finditer("\n" + normalised):
        # positions in `normalised`; a line match's line break is kept
        start, end = found.start() - 1 + (found.group()[0] == "\n"), found.end() - 1
        if start == end:
            continue
        # (two matches may touch one character's normalised form)
        first, last = max(original(start, end=False), done), original(end, end=True)
        out.append(text[done:first])
        out.append(" " * (last - first))
        done = last
    out.append(text[done:])
    return "".join(out)


def _normalise(run: str) -> str:
    # Each step only where it changes something: translate and a second NFKC are slow, and
    # rarely needed (an invisible character; a casefold that leaves text un-normalised, "ẞ").
    if any(invisible in run for invisible in _INVISIBLE):  # (a regex search is slower)
        run = run.translate(_DROP_INVISIBLE)
    run = unicodedata.normalize("NFKC", run).casefold()
    if not unicodedata.is_normalized("NFKC", run):
        run = unicodedata.normalize("NFKC", run)
    return run


# A piece's normalised form can follow what came before it as it stands unless NFKC reaches
# back across the join: a character at the head of the piece, at any step, that is a combining
# mark (it reorders or composes with what precedes), a Hangul vowel or final jamo (it joins the
# syllable or leading jamo before it: NFKC makes "ㅋㅜ" one syllable) or has a combining
# class. Every character that composes as a second one is a mark or such a jamo
# (tests/filter/test_normalise_pieces.py checks it for this Python's unicodedata). A jamo
# composes with a syllable or a leading jamo only: after an ASCII character no mark follows
# (nothing composes with one, nothing reorders across it) a piece headed by one joins too.
_JAMO = re.compile("[\u1160-\u11ff\ud7b0-\ud7ff]")

# How a piece's form joins what precedes it (_piece_form): after anything; only after an
# ASCII character no mark follows, or at the text's start; not as it stands.
JOINS, JOINS_AFTER_ASCII, APART = 2, 1, 0


def _joins_at(step: str, *, after_ascii: bool = False) -> bool:
    if not step or step[0] < "\x80":
        return True
    head = step[0]
    return (
        not unicodedata.combining(head)
        and not unicodedata.category(head).startswith("M")
        and (after_ascii or not _JAMO.match(head))
    )


def _piece_form(piece: str) -> tuple[str, int]:
    """A piece's normalised form (_normalise's, step by step) and how it joins what precedes
    it (JOINS, JOINS_AFTER_ASCII, APART): the compiled normaliser's cache holds both
    (filter/_speedups.c's normalised)."""
    dropped = piece.translate(_DROP_INVISIBLE)
    composed = unicodedata.normalize("NFKC", dropped)
    folded = composed.casefold()
    form = unicodedata.normalize("NFKC", folded)
    steps = (dropped, composed, folded, form)
    if all(_joins_at(step) for step in steps):
        return form, JOINS
    if all(_joins_at(step, after_ascii=True) for step in steps):
        return form, JOINS_AFTER_ASCII
    return form, APART


# What the compiled shingling (filter/_speedups.c's text_shingles) calls back: a piece's form,
# and a whole text's where some piece of it does not join as it stands. The words it hashes
# are word_bytes(text)'s.
COMPILED_NORMALISERS = (_piece_form, _normalise)


def _normalised(text: str) -> str:
    """_normalise(text), by pieces each normalised once in the process where the C module is
    built (most of a text's words are ASCII, most of its other characters a few), whole where
    a piece does not join as it stands or the module is not built."""
    compiled = speedups.compiled
    if compiled is not None:
        by_pieces = compiled.normalised(text, _piece_form)
        if by_pieces is not None:
            return by_pieces
    return _normalise(text)


def _normalise_with_offsets(text: str) -> tuple[str, list[tuple[int, int, int, bool]]]:
    """NFKC + casefold of `text`, and pieces (start in output, start in text, length in text,
    exact) mapping back: ASCII stretches map character for character; a normalised non-ASCII
    run maps as a whole onto the characters it came from."""
    out: list[str] = []
    pieces: list[tuple[int, int, int, bool]] = []
    out_len, done = 0, 0
    for run in _NON_ASCII_CHAR.finditer(text):
        if run.start() > done:
            plain = text[done : run.start()].lower()
            out.append(plain)
            pieces.append((out_len, done, len(plain), True))
            out_len += len(plain)
        normalised = _normalise(run.group())
        out.append(normalised)
        pieces.append((out_len, run.start(), run.end() - run.start(), False))
        out_len += len(normalised)
        done = run.end()
    if done < len(text):
        plain = text[done:].lower()
        out.append(plain)
        pieces.append((out_len, done, len(plain), True))
    return "".join(out), pieces


def _original_offsets(pieces: list[tuple[int, int, int, bool]]):
    """original(position, end=): the offset in the text of a position in its normalised form
    (an end is one past the last character), by the pieces _normalise_with_offsets made."""
    piece_starts = [piece[0] for piece in pieces]

    def original(position: int, *, end: bool) -> int:
        at = position - 1 if end else position
        out_start, text_start, length, exact = pieces[bisect_right(piece_starts, at) - 1]
        if exact:
            return text_start + (at - out_start) + (1 if end else 0)
        return text_start + length if end else text_start

    return original


def words(text: str) -> list[str]:
    """The normalised words of `text`, without offsets."""
    if text.isascii():
        return _ASCII_WORD.findall(cut_markup(text).lower())
    return _non_ascii_words(cut_markup(_normalised(text)))


def word_bytes(text: str) -> list[bytes]:
    """The normalised words of `text` as UTF-8: the hot path of every check."""
    if text.isascii():
        return _ASCII_WORD_BYTES.findall(cut_markup(text).encode().lower())
    found = _non_ascii_words(cut_markup(_normalised(text)))
    # One join, one encode and one split in C instead of an encode per word (no word holds
    # a NUL: it is not a letter or digit).
    return "\0".join(found).encode().split(b"\0") if found else []


def _non_ascii_words(normalised: str) -> list[str]:
    if _marks_join_words(normalised):
        return _UNICODE_WORD.findall(normalised)
    return _PLAIN_WORD.findall(normalised)


def tokenise(text: str) -> Tokens:
    """The normalised words of `text` with the character span each came from. In C where it
    is built (filter/_speedups.c's word_spans); _tokenise is the reference."""
    compiled = speedups.compiled
    if compiled is not None:
        return Tokens(*compiled.word_spans(text, _normalise, True))
    return _tokenise(text)


def word_spans(text: str) -> WordSpans:
    """tokenise(text)'s spans without its words: what a match's passages need."""
    compiled = speedups.compiled
    if compiled is not None:
        _, starts, ends = compiled.word_spans(text, _normalise, False)
        return WordSpans(starts, ends)
    tokens = _tokenise(text)
    return WordSpans(tokens.starts, tokens.ends)


def _tokenise(text: str) -> Tokens:
    if text.isascii():
        found = list(_ASCII_WORD.finditer(blanked(text)))
        return Tokens(
            words=[m.group().lower() for m in found],
            starts=[m.start() for m in found],
            ends=[m.end() for m in found],
        )
    # Normalised piece by piece (pieces map each position back), then blanked: the rules read
    # the normalised text, as they do for words().
    normalised, pieces = _normalise_with_offsets(text)
    original = _original_offsets(pieces)
    found = list(_UNICODE_WORD.finditer(blanked(normalised)))
    return Tokens(
        words=[m.group() for m in found],
        starts=[original(m.start(), end=False) for m in found],
        ends=[original(m.end(), end=True) for m in found],
    )
