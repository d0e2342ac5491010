"""Redaction: a record with the passages it copied cut out, so that the rest stays evidence.

The matcher gives each passage as a character span of the record (`passage_spans`); a cut is
wider than the passage, so that nothing of the artifact is left behind:
- to whole words: a passage ends on a token, and `snake_case` or `don't` is more than one;
- to the markup around it: the line-number gutter, list bullet or quote mark before its first
  line, the rest of its last line when that holds no word, and the fence or gutter-only lines
  right above and below it (up to a blank line or a line with words);
- two cuts with no word between them are one cut.

The evidence text is the record's text with each cut replaced by one marker, which says how
much was cut and nothing of what (`CUT_MARKER`). A record with fewer than `MIN_KEPT_WORDS`
words outside its cuts is all copy: it has nothing to keep and is excluded whole.
"""

import re
from collections.abc import Iterable, Sequence

from filter.normalise import Tokens, WordSpans, strip_markup, word_bytes

# One marker per cut: a memory system can tell where text was taken out and how much, and
# learns nothing of the artifact from it.
CUT_MARKER = "[… poimen: {length} characters cut …]"
# Words a redacted record must keep outside its cuts; with fewer it is excluded whole. Twenty
# is the matcher's minimum of shared shingles: a remainder shorter than what the filter calls a
# copy is no evidence of anything of its own.
MIN_KEPT_WORDS = 20

Span = tuple[int, int]

_WORD = re.compile(r"[^\W_]")


def passage_spans(
    tokens: Tokens | WordSpans, token_ranges: Iterable[tuple[int, int]]
) -> list[Span]:
    """[start, end) token ranges of a record (the matcher's alignments) as character spans."""
    return [(tokens.starts[start], tokens.ends[end - 1]) for start, end in token_ranges]


def _wordless(stripped: str, start: int, end: int) -> bool:
    """No word in stripped[start:end]: only spaces, punctuation and blanked markup."""
    return _WORD.search(stripped, start, end) is None


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _widen(text: str, stripped: str, start: int, end: int) -> Span:
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    first = _line_start(text, start)
    if _wordless(stripped, first, start):
        start = first
        # the fence or bare gutter lines right above
        while start > 0:
            above = _line_start(text, start - 1)
            if not text[above : start - 1].strip() or not _wordless(stripped, above, start - 1):
                break
            start = above
    last = _line_end(text, end)
    if _wordless(stripped, end, last):
        end = last
        while end < len(text):
            below = _line_end(text, end + 1)
            if not text[end + 1 : below].strip() or not _wordless(stripped, end + 1, below):
                break
            end = below
    return start, end


def cut_spans(text: str, passages: Iterable[Span]) -> list[Span]:
    """The passages widened to whole words and the markup around them, merged, in order."""
    stripped = strip_markup(text)
    cuts: list[list[int]] = []
    for start, end in sorted(_widen(text, stripped, s, e) for s, e in passages if e > s):
        if cuts and (start <= cuts[-1][1] or _wordless(stripped, cuts[-1][1], start)):
            cuts[-1][1] = max(cuts[-1][1], end)
        else:
            cuts.append([start, end])
    return [(start, end) for start, end in cuts]


def kept_words(text: str, cuts: Sequence[Span]) -> int:
    """How many of the record's words lie outside the cuts (`cuts` sorted and disjoint, at
    word boundaries as cut_spans makes them). Counted on the matcher's fast path, without
    offsets: what is left is the text between the cuts, a line break for each cut."""
    pieces, done = [], 0
    for start, end in cuts:
        pieces.append(text[done:start])
        done = end
    pieces.append(text[done:])
    return len(word_bytes("\n".join(pieces)))


def redaction(text: str, passages: Iterable[Span]) -> list[Span] | None:
    """The cuts that redact `text` of `passages`, or None when too little would be left to be
    evidence (the record is then excluded whole)."""
    cuts = cut_spans(text, passages)
    if not cuts or kept_words(text, cuts) < MIN_KEPT_WORDS:
        return None
    return cuts


def evidence_text(text: str, cuts: Sequence[Span]) -> str:
    """`text` with each cut replaced by CUT_MARKER (`cuts` sorted and disjoint)."""
    pieces, done = [], 0
    for start, end in cuts:
        pieces.append(text[done:start])
        pieces.append(CUT_MARKER.format(length=end - start))
        done = end
    pieces.append(text[done:])
    return "".join(pieces)
