"""Normalisation and tokenisation: text -> word tokens that keep their place in the original.

Markup that carries no words is blanked *in place* (replaced by as many spaces), so every
token's character offsets are those of the original text and a match can be highlighted where
it stands. What counts as a word is then a run of letters and digits; punctuation, bullets,
heading and quote marks, table pipes and emphasis marks fall away between words by themselves.
Only the markup that would otherwise leave words or numbers behind needs a rule of its own.

Bump NORMALISER_VERSION whenever the tokens this module produces for some text change: the
version travels with every stored shingle list, and lists made under another version are
re-shingled or refused, never compared.
"""

import re
import unicodedata
from dataclasses import dataclass

NORMALISER_VERSION = "norm-v1"

# A line-number gutter as file-reading tools print it: "    12→", "12<TAB>" (cat -n), "12: ".
_GUTTER = r"[ \t]*\d{1,9}(?:→|\t|: )"
# Blockquote marks, then a bullet, before a list number such as "1." or "2)".
_QUOTES = r"(?:[ \t]*>)*"

_MARKUP = re.compile(
    rf"""
    # a code fence line, its info string included ("```python", "~~~ {{.sh}}")
    ^(?:{_GUTTER})?{_QUOTES}[ \t]*(?:`{{3,}}|~{{3,}})[^\n]*
    # a list number, after any gutter, quote marks and bullet
    | ^(?:{_GUTTER})?{_QUOTES}[ \t]*(?:[-*+][ \t]+)?\d{{1,9}}[.)](?=[ \t\r\n]|$)
    # a bare gutter
    | ^{_GUTTER}
    # an HTML tag, attributes and all
    | </?[A-Za-z][A-Za-z0-9-]*(?:[ \t\r\n][^<>]*)?/?>
    """,
    re.MULTILINE | re.VERBOSE,
)

# ASCII text (the common case) is lower-cased in one go; no offset can move.
_ASCII_WORD = re.compile(r"[^\W_]+", re.ASCII)
# Elsewhere a word may carry combining marks and invisible joiners (soft hyphen, zero-width
# space and joiners, word joiner, BOM) that must not split it; they are removed afterwards.
_INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_COMBINING = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_UNICODE_WORD = re.compile(rf"[^\W_](?:[^\W_]|[{_COMBINING}{_INVISIBLE}])*")
_DROP_INVISIBLE = str.maketrans("", "", _INVISIBLE)


@dataclass(frozen=True, slots=True)
class Tokens:
    """The words of a text, normalised, with their character offsets in the original."""

    words: list[str]
    starts: list[int]
    ends: list[int]

    def __len__(self) -> int:
        return len(self.words)


def _blank(match: re.Match) -> str:
    return " " * (match.end() - match.start())


def strip_markup(text: str) -> str:
    """`text` with wordless markup replaced by spaces: same length, same offsets."""
    return _MARKUP.sub(_blank, text)


def _normalise_word(word: str) -> str:
    word = unicodedata.normalize("NFKC", word.translate(_DROP_INVISIBLE))
    return unicodedata.normalize("NFKC", word.casefold())


def words(text: str) -> list[str]:
    """The normalised words of `text`, without offsets: the hot path of every check."""
    stripped = strip_markup(text)
    if stripped.isascii():
        return _ASCII_WORD.findall(stripped.lower())
    return [
        w.lower() if w.isascii() else _normalise_word(w) for w in _UNICODE_WORD.findall(stripped)
    ]


def tokenise(text: str) -> Tokens:
    """The normalised words of `text` with the character span each came from."""
    stripped = strip_markup(text)
    if stripped.isascii():
        found = list(_ASCII_WORD.finditer(stripped))
        return Tokens(
            words=[m.group().lower() for m in found],
            starts=[m.start() for m in found],
            ends=[m.end() for m in found],
        )
    found = list(_UNICODE_WORD.finditer(stripped))
    return Tokens(
        words=[
            m.group().lower() if m.group().isascii() else _normalise_word(m.group()) for m in found
        ],
        starts=[m.start() for m in found],
        ends=[m.end() for m in found],
    )
