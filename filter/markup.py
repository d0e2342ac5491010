"""What the normaliser finds as wordless markup, read in the normalised text: the read shapes'
per-line prefixes (line-number gutters, a path before every line, a diff's "+"), fence lines,
list numbers and quote marks at a line start, and inline tags, escapes and entities
(docs/read-shapes.md is the catalogue). filter/normalise.py blanks it, keeping offsets, or cuts
it out where only the words matter; filter/_speedups.c holds the same rules as straight scans.
"""

import re

from filter import speedups

# Each rule below is one entry of the catalogue in docs/read-shapes.md. Every part of every rule
# is greedy and can succeed one way only, so filter/_speedups.c matches them as straight scans.
#
# A line-number gutter as file-reading tools print it: "    12→" (Claude Code's Read), "12<TAB>"
# (cat -n; "\t" inside a JSON string, "^I" under cat -A), bat's "   12 │" (a git mark may sit
# before the bar), "12:" and "12-" (grep -n, Claude Code's Grep in one file: a match and a
# context line) unless two digits follow ("10:30", "2024-01-15" are no gutters; "3:1. Run" is).
# bat's comes first: its blanks may begin with the tab of "12<TAB>", and the longer one wins.
_BAT_BAR = r"[^\S\n]*(?:[-+~_‾][^\S\n]*)?│"
_GUTTER = rf"[^\S\n]*\d{{1,9}}(?:{_BAT_BAR}|→|\t|\\t|\^[Ii]|:(?!\d\d)|-(?!\d\d))"
# A path before the line number: "src/a.md:12:", with rg's column "src/a.md:12:5:", and grep's
# context line "src/a.md-12-". The path holds a "." or a "/" (so "10:30:" is no path), no
# space, colon or backslash; the first "-N-" after its first "." or "/" ends it.
_PATH = r"""[^\s:\\./]*[./](?:[^\s:\\-]|-(?!\d{1,9}-))*(?::\d{1,9}:(?:\d{1,9}:)?|-\d{1,9}-)"""
# What may stand before a line's own markup: a gutter, a path, or a diff's added-line "+"
# ("git diff", Codex's apply_patch).
_PREFIX = rf"(?:{_GUTTER}|{_PATH}|\+)"
# A line starts after a line break, or after an escaped one inside a JSON string.
_LINE_BREAK = r"(?:\n|\\n)"
# Blockquote marks, then a bullet, before a list number such as "1." or "2)".
_QUOTES = r"(?:[^\S\n]*>)*"

# Every line-start rule begins with the line break before the line (strip_markup puts one before
# the first line), the tag rules with "<" or "&", an escape with "\" and cat -A's tab with "^":
# the regex engine can then skip ahead to those characters instead of trying every rule at
# every position. A fence line's info string ends at the line's end, escaped or not.
_FENCE_OR_NUMBER = (
    r"(?:(?:`{3,}|~{3,})(?:[^\n\\]|\\[^n\n]|\\(?=\n|\Z))*"
    r"|(?:[-*+][^\S\n]+)?\d{1,9}[.)](?=\s|\Z))"
)
_LINE_START = rf"""
    # after any prefix, quote marks and bullet: a code fence line, its info string included
    # ("```python", "~~~ {{.sh}}"), or a list number ("1.", "2)")
    {_LINE_BREAK}{_PREFIX}?{_QUOTES}[^\S\n]*{_FENCE_OR_NUMBER}
    # else a bare prefix
    | {_LINE_BREAK}{_PREFIX}
"""
# an HTML tag, attributes and all
_TAG = r"</?[A-Za-z][A-Za-z0-9-]*(?:[ \t][^<>\n]*)?/?>"
# HTML-escaped text ("<pre>" of a page, an HTML report): an escaped tag, then any entity the
# escaping makes (a numeric one stands for punctuation there)
_ESCAPED_TAG = r"&lt;/?[A-Za-z][A-Za-z0-9-]*(?:[ \t](?:[^<>\n&]|&(?!gt;))*)?/?&gt;"
_ENTITY = r"&(?:lt|gt|amp|quot|apos|nbsp|\#\d{1,7}|\#x[0-9a-fA-F]{1,6});"
# a JSON string's escapes (MCP tools, some shells); "\n" that starts no line markup too
_ESCAPE = r'\\(?:[\\"/bfnrt]|u[0-9a-fA-F]{4})'
# cat -A: a tab is "^I", a carriage return "^M" before the "$" that ends each line
_CARET = r"\^(?:[Ii]|[Mm](?=\$))"
_INLINE = rf"{_TAG} | {_ESCAPED_TAG} | {_ENTITY} | {_ESCAPE} | {_CARET}"
MARKUP = re.compile(rf"{_LINE_START} | {_INLINE}", re.VERBOSE)
# The same rules apart, for the words alone: each pass searches for its one first character,
# about twice as fast as the rules together. A tag never holds a line break, and the line pass
# leaves one where it cut, so the tag pass finds the tags the rules together find. A text with
# a character the other inline rules start with (rare) is cut in the one pass, as C cuts it.
_LINE_MARKUP = re.compile(_LINE_START, re.VERBOSE)
_TAG_MARKUP = re.compile(_TAG, re.VERBOSE)
_ONE_PASS_ONLY = ("\\", "&", "^")


def _blank(match: re.Match) -> str:
    found = match.group()
    if found[0] == "\n":
        return "\n" + " " * (len(found) - 1)
    return " " * len(found)


def blanked(normalised: str) -> str:
    """`normalised` (ASCII or normalised text) with its markup blanked: same length."""
    return MARKUP.sub(_blank, "\n" + normalised)[1:]


def cut_markup(normalised: str) -> str:
    """`normalised` (ASCII or normalised text) with wordless markup cut out: the same words
    as blanking gives, for less (a replacement string is cheaper than a call per match). In C
    where it is built."""
    compiled = speedups.compiled
    if compiled is not None:
        return compiled.strip_markup(normalised)
    if any(character in normalised for character in _ONE_PASS_ONLY):
        return MARKUP.sub(_cut, "\n" + normalised)
    return _TAG_MARKUP.sub(" ", _LINE_MARKUP.sub("\n", "\n" + normalised))


def _cut(match: re.Match) -> str:
    return "\n" if match.group()[0] == "\n" else " "
