"""Template helpers of the review desk. Record and artifact text is untrusted: every piece of it
goes through conditional_escape,
and the only markup added is our own, built with format_html."""

from urllib.parse import urlencode

from django import template
from django.urls import reverse
from django.utils.dateformat import format as date_format
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe

from poimen.models import IngestRun, Review
from poimen.selectors import SNIPPET_CHARS, SNIPPET_LEAD

register = template.Library()

COLOURS = 8


@register.simple_tag
def highlighted(text: str, passages, side: str, cuts=()):
    """`text` with each passage wrapped in a numbered <mark>, paired by number across sides,
    and each cut of a redaction (record side, [start, end) pairs) struck through in a <del>.

    side is "record" or "artifact". On the artifact side two record passages can map onto
    overlapping stretches: a later one is clipped to start where the earlier ended."""
    if not cuts:
        return _highlighted(text, passages, side, 0, len(text))
    pieces, position = [], 0
    for start, end in cuts:
        pieces.append(_highlighted(text, passages, side, position, start))
        pieces.append(
            format_html(
                '<del class="cut" title="cut: {} characters">{}</del>',
                end - start,
                _highlighted(text, passages, side, start, end),
            )
        )
        position = end
    pieces.append(_highlighted(text, passages, side, position, len(text)))
    return mark_safe("".join(str(piece) for piece in pieces))  # every piece escaped


def _highlighted(text: str, passages, side: str, begin: int, finish: int):
    """text[begin:finish], highlighted: passages clipped to it (a passage split by a cut is
    two marks; the first keeps its id, the target of the passage links)."""
    spans = []
    for passage in passages:
        span = passage.record_span if side == "record" else passage.artifact_span
        if span is not None and span[0] < finish and span[1] > begin:
            spans.append((max(span[0], begin), min(span[1], finish), passage, span[0] >= begin))
    spans.sort(key=lambda item: (item[0], item[2].number))
    pieces = []
    position = begin
    for start, end, passage, first_piece in spans:
        start = max(start, position)
        if start >= end:
            continue
        pieces.append(conditional_escape(text[position:start]))
        classes = f"hl hl-{(passage.number - 1) % COLOURS + 1}"
        title = f"passage {passage.number}: {passage.shared} shared shingles"
        if passage.boilerplate:
            classes += " boilerplate"
            title += " (boilerplate: common to many artifacts)"
        changes = passage.record_changes if side == "record" else passage.artifact_changes
        pieces.append(
            format_html(
                '<mark class="{}" data-passage="{}"{} title="{}">{}</mark>',
                classes,
                passage.number,
                format_html(' id="{}-p{}"', side, passage.number) if first_piece else "",
                title,
                _with_changes(text, start, end, changes, side),
            )
        )
        position = end
    pieces.append(conditional_escape(text[position:finish]))
    return mark_safe("".join(str(piece) for piece in pieces))  # every piece escaped above


# The passage strip beside a pane is drawn on a 1,000-unit-tall SVG; a passage gets at least
# this many units, so a short one stays a mark one can see and click.
STRIP_UNITS, STRIP_LEAST = 1000, 6


@register.simple_tag
def passage_strip(passages, side: str, length: int) -> list[dict]:
    """Where each passage lies in the whole text of `side`, as bands of a strip (y, height in
    STRIP_UNITS), with the passage's number and colour, for the strip beside the pane."""
    bands = []
    for passage in passages:
        span = passage.record_span if side == "record" else passage.artifact_span
        if span is None or not length:
            continue
        y = span[0] * STRIP_UNITS / length
        height = max((span[1] - span[0]) * STRIP_UNITS / length, STRIP_LEAST)
        bands.append(
            {
                "number": passage.number,
                "y": round(min(y, STRIP_UNITS - height), 1),
                "height": round(height, 1),
                "colour": "boilerplate"
                if passage.boilerplate
                else (passage.number - 1) % COLOURS + 1,
            }
        )
    return bands


def _with_changes(text: str, start: int, end: int, changes, side: str):
    """text[start:end] with the words that differ from the other side marked: on the record
    side what it changed or inserted (<ins>), on the artifact side what it lost (<del>)."""
    tag = "ins" if side == "record" else "del"
    what = "changed or inserted by the record" if side == "record" else "changed or dropped"
    pieces = []
    position = start
    for change_start, change_end in changes:
        change_start, change_end = max(change_start, position), min(change_end, end)
        if change_start >= change_end:
            continue
        pieces.append(conditional_escape(text[position:change_start]))
        pieces.append(
            format_html(
                '<{} class="word-change" title="{}">{}</{}>',
                tag,
                what,
                text[change_start:change_end],
                tag,
            )
        )
        position = change_end
    pieces.append(conditional_escape(text[position:end]))
    return mark_safe("".join(str(piece) for piece in pieces))  # every piece escaped above


def _cut_at_words(snippet: str, *, starts_inside: bool, limit: int) -> str:
    """A snippet cut to `limit` characters at a word boundary, with "…" where the text goes
    on: after it when it was longer (the selectors fetch one character more than is shown),
    before it when it starts inside the text (a search's snippet starts before the hit)."""
    shown = snippet[:limit]
    if len(snippet) > limit:
        space = max(shown.rfind(" "), shown.rfind("\n"), shown.rfind("\t"))
        shown = (shown[:space] if space > limit // 2 else shown).rstrip() + "…"
    if starts_inside:
        # The first word is a piece of one; the hit comes SNIPPET_LEAD characters in.
        first_space = next((i for i, c in enumerate(shown[:SNIPPET_LEAD]) if c.isspace()), None)
        shown = "…" + (shown[first_space:].lstrip() if first_space is not None else shown)
    return shown


@register.simple_tag
def search_hit(snippet: str, query: str, start: int = 1, limit: int = SNIPPET_CHARS):
    """A list snippet with the searched words marked (case-insensitive), all of it escaped.
    `start` is where in the record's text the snippet begins (1: at the start)."""
    snippet = _cut_at_words(snippet or "", starts_inside=(start or 1) > 1, limit=limit)
    if not query:
        return conditional_escape(snippet)
    lowered = snippet.lower()
    needle = query.lower()
    pieces = []
    position = 0
    while needle:
        found = lowered.find(needle, position)
        if found == -1:
            break
        pieces.append(conditional_escape(snippet[position:found]))
        pieces.append(format_html("<mark>{}</mark>", snippet[found : found + len(needle)]))
        position = found + len(needle)
    pieces.append(conditional_escape(snippet[position:]))
    return mark_safe("".join(str(piece) for piece in pieces))  # every piece escaped above


@register.simple_tag
def href(viewname: str, *args, query: str = "", **params) -> str:
    """A desk URL with `params` and an already-encoded `query` (a list's filters) after it,
    joined so that no `?` or `&` is left dangling when either is empty."""
    parts = [urlencode({k: v for k, v in params.items() if v not in (None, "")}), query]
    joined = "&".join(part for part in parts if part)
    url = reverse(viewname, args=args)
    return f"{url}?{joined}" if joined else url


@register.simple_tag
def shadow_meaning() -> str:
    """What a shadow badge says (IngestRun.SHADOW_MEANING, its one home)."""
    return IngestRun.SHADOW_MEANING


@register.filter(expects_localtime=True)
def when(value, fmt: str = "Y-m-d H:i"):
    """A date and time that never wraps inside itself ("2026-12-⏎01"), machine-readable too."""
    if not value:
        return ""
    if fmt == "Y-m-d H:i":  # a list shows fifty: Django's date format costs 0.1 ms apiece
        shown = f"{value.year:04d}-{value.month:02d}-{value.day:02d} {value:%H:%M}"
    else:
        shown = date_format(value, fmt)
    return format_html('<time class="when" datetime="{}">{}</time>', value.isoformat(), shown)


@register.filter
def percent(value) -> str:
    if value is None:
        return "–"
    return f"{value * 100:.0f}%"


@register.filter
def overlap(value) -> str:
    if value is None:
        return "–"
    return f"{value:.2f}"


# An overlap is shown with two decimals, or as many more (up to six) as it takes to tell it
# from the threshold it is held against: a near miss reads 0.797, not 0.80.
LEAST_DIGITS, MOST_DIGITS = 2, 6


def decisive_digits(value: float, reference: float) -> int:
    """The fewest decimals (2 to 6) at which `value` and `reference` read differently."""
    for digits in range(LEAST_DIGITS, MOST_DIGITS + 1):
        if f"{value:.{digits}f}" != f"{reference:.{digits}f}":
            return digits
    return MOST_DIGITS if value != reference else LEAST_DIGITS + 1


@register.filter
def overlap_near(value, reference) -> str:
    """`value` with the precision that tells it from `reference` (a threshold)."""
    if value is None:
        return "–"
    if reference in (None, ""):
        return overlap(value)
    return f"{value:.{decisive_digits(value, float(reference))}f}"


@register.filter
def overlap_against(value, reference) -> str:
    """The decision in numbers: "0.797 < 0.800", "0.912 > 0.900", "0.800 = 0.800" (a record
    is derived when its overlap exceeds the threshold, so equal is not over)."""
    if value is None or reference in (None, ""):
        return overlap(value)
    reference = float(reference)
    digits = decisive_digits(value, reference)
    relation = ">" if value > reference else "<" if value < reference else "="
    return f"{value:.{digits}f} {relation} {reference:.{digits}f}"


@register.simple_tag
def overlap_in_kind(value, thresholds: dict, kind: str, default: float) -> str:
    """`value` with the precision that tells it from the threshold of `kind`."""
    return overlap_near(value, thresholds.get(kind, default))


@register.filter
def verdict_label(value) -> str:
    if not value:
        return "not reviewed"
    try:
        return Review.Verdict(value).label
    except ValueError:
        return str(value)


@register.filter
def counts_summary(counts) -> str:
    """A run's counts, nested ones flattened: "read 4 · new 4 · excluded skill 2"."""
    if not isinstance(counts, dict):
        return ""
    parts = []
    for key, value in counts.items():
        if isinstance(value, dict):
            if value:
                inner = ", ".join(f"{k} {v}" for k, v in value.items())
                parts.append(f"{key.replace('_', ' ')} {inner}")
        else:
            parts.append(f"{key.replace('_', ' ')} {value}")
    return " · ".join(parts)
