"""A row of the exclusions or near-miss list, written in Python: `{% load list_rows %}`, then
`{% list_row %}` with `row` in the context (a record marked by views.links.rows_linked and
selectors.claims_shown), as the row partial of _list_results.html does.

A list page is fifty rows of some ninety template nodes and a hundred variable lookups each:
through the template engine that was most of a page's server time at 10^6 records, more than
its SQL (bench/desk.py; the figures are in bench/results/). Here a row is a few joins of
strings. What is the same for every row of a page (the CSRF field, the reason buttons,
whether the reader may judge) is made once a page, and every piece of record or artifact text
goes through html.escape (what django.utils.html.escape runs), as autoescaping did in the
template.
"""

import html
from dataclasses import dataclass

from django import template
from django.template.defaulttags import CsrfTokenNode
from django.utils.safestring import mark_safe
from django.utils.text import Truncator
from django.utils.timezone import template_localtime

from poimen.models import IngestRun
from poimen.team.verdicts import undo_refusal
from poimen.templatetags.desk import overlap_in_kind, search_hit, verdict_label, when

register = template.Library()

# How much of a verdict's note a row shows (the whole note is in the note field below it).
NOTE_SHOWN = 140

BUTTONS = {
    "confirmed": '<button type="submit" class="confirm" data-shortcut="c" title="Confirm the '
    'exclusion">Confirm <kbd>c</kbd></button>',
    "false_positive": '<button type="submit" class="release" data-shortcut="f" title="Not a '
    'copy: release to evidence">False positive <kbd>f</kbd></button>',
    "false_negative": '<button type="submit" class="exclude" data-shortcut="n" title="A copy '
    'the filter missed: exclude it">False negative <kbd>n</kbd></button>',
}
OTHER = "other"


def _e(value) -> str:
    return html.escape(str(value))


@dataclass(frozen=True)
class _Shared:
    """What every row of a page shows alike, made once a page (kept in the render context)."""

    judge: bool  # the reader may give verdicts: the Judge column and its forms
    thresholds: dict
    default_threshold: float
    query: str  # the search, marked in each snippet
    csrf: str  # the CSRF field every form posts
    reason_buttons: str  # a false positive's reasons but "other", a button each
    other_key: str
    list_name: str
    back_to_list: str
    use_tz: bool
    user: object  # the reader: a row offers undo of their own verdict only (poimen.team.verdicts)


def _shared(context) -> _Shared:
    cache = context.render_context
    shared = cache.get(_Shared)
    if shared is None:
        perms = context.get("perms")
        reason_keys = context.get("reason_keys") or []
        filters = context.get("filters")
        shared = _Shared(
            judge=bool(perms) and "poimen.review_record" in perms,
            thresholds=context.get("thresholds") or {},
            default_threshold=context.get("default_threshold"),
            query=getattr(filters, "q", "") or "",
            csrf=str(CsrfTokenNode().render(context)),
            reason_buttons="".join(
                f'<button type="submit" name="reason" value="{_e(value)}" class="release" '
                f'data-shortcut="{_e(key)}" title="{_e(definition)}">{_e(label)} '
                f"<kbd>{_e(key)}</kbd></button>"
                for value, label, key, definition in reason_keys
                if value != OTHER
            ),
            other_key=next((key for value, _, key, _ in reason_keys if value == OTHER), ""),
            list_name=context.get("list_name") or "",
            back_to_list=context.get("back_to_list") or "",
            use_tz=context.use_tz,
            user=context.get("user"),
        )
        cache[_Shared] = shared
    return shared


@register.simple_tag(takes_context=True)
def list_row(context):
    """The <tr> of `row` (in the context). A row rendered alone after a verdict or a refusal
    may carry `refusal`, `note_error`, `other_error` and `other_note` in the context too."""
    shared = _shared(context)
    row = context["row"]
    links = row.links
    artifact = row.best_artifact
    review = row.review
    kind = artifact.kind if artifact is not None else ""
    out = [
        f'<tr data-row id="row-{_e(links.id)}">\n<td class="num overlap-cell">',
        _e(overlap_in_kind(row.best_overlap, shared.thresholds, kind, shared.default_threshold)),
        '</td>\n<td class="record-cell">\n',
        f'<a data-shortcut="open" href="{_e(links.open)}">#{_e(links.id)}</a>',
        ' <span class="badge redacted">redacted</span>' if row.status == "redacted" else "",
        (
            f' <span class="badge shadow" data-shadow title="{_e(IngestRun.SHADOW_MEANING)}">'
            "shadow</span>"
            if getattr(row, "shadow", False)
            else ""
        ),
        f'\n<div class="small muted">{_e(row.source)}',
        f" · {_e(row.role)}" if row.role else "",
        '</div>\n<div class="small muted">',
        when(template_localtime(row.created_at, shared.use_tz)),
        "</div>\n",
    ]
    claimed_by = getattr(row, "claimed_by", "")
    if claimed_by:
        out.append(f'<div class="small" data-claimed>claimed by {_e(claimed_by)}</div>\n')
    out.append('</td>\n<td class="artifact-cell">\n')
    if artifact is not None:
        out.append(
            f'<span class="badge">{_e(kind)}</span>\n'
            f'<div><a href="{_e(links.artifact)}">{_e(artifact.name)}</a></div>\n'
        )
    else:
        out.append('<span class="muted">–</span>\n')
    out += [
        '</td>\n<td class="snippet">',
        search_hit(row.snippet, shared.query, row.snippet_from),
        '</td>\n<td class="verdict-cell">\n',
    ]
    if review is not None:
        out.append(f'<span class="badge {_e(review.verdict)}">{_e(verdict_label(review.verdict))}')
        if review.reason:
            out.append(f" · {_e(review.get_reason_display())}")
        reviewer = review.reviewer
        out.append(
            f'</span>\n<div class="small muted">'
            f"{_e(reviewer.get_username()) if reviewer is not None else ''}</div>\n"
        )
        if review.note:
            note = Truncator(review.note).chars(NOTE_SHOWN)
            out.append(f'<div class="small row-note-text" data-note>“{_e(note)}”</div>\n')
    else:
        out.append('<span class="badge">not reviewed</span>\n')
    refusal = context.get("refusal")
    if refusal:  # why what was asked of this row was not done (_refusal.html, its one home)
        out.append(context.template.engine.get_template("_refusal.html").render(context))
    out.append("</td>\n")
    if shared.judge:
        out.append(_judge_cell(context, shared, row, links, review))
    out.append("</tr>\n")
    return mark_safe("".join(out))  # every piece of text escaped above


def _judge_cell(context, shared: _Shared, row, links, review) -> str:
    """The verdicts offered on `row`, a false positive's reasons, undo and the note."""
    review_url = _e(links.review)
    fields = f"{shared.csrf}{links.hidden}"
    other_error = context.get("other_error")
    opened = " open" if other_error else ""
    # A verdict or an undo swaps the row for itself.
    out = [
        '<td class="judge-cell">\n'
        '<div class="actions" hx-target="closest tr" hx-swap="outerHTML">\n'
    ]
    for verdict in row.offered:
        out.append(
            f'<form method="post" action="{review_url}" hx-post="{review_url}">\n{fields}\n'
            f'<input type="hidden" name="verdict" value="{_e(verdict)}">\n'
            f"{BUTTONS.get(verdict, BUTTONS['false_negative'])}\n</form>\n"
        )
        if verdict == "false_positive":
            # The reasons fold away, so a row stays short; keys 1-4 reach them folded.
            out.append(
                f'<details class="row-reasons small"{opened}><summary>because… <kbd>1</kbd>–'
                f"<kbd>4</kbd></summary>\n"
                f'<form method="post" action="{review_url}" hx-post="{review_url}" role="group" '
                f'aria-label="False positive because">\n{fields}'
                f'<input type="hidden" name="verdict" value="false_positive">\n'
                f"{shared.reason_buttons}\n</form>\n"
                # "other" asks for its note before it is sent
                f'<details class="row-other"{opened}><summary data-shortcut="'
                f'{_e(shared.other_key)}">other… <kbd>{_e(shared.other_key)}</kbd></summary>\n'
            )
            out.append(_note_asked(context, shared, links, other_error))
            out.append("</details>\n</details>\n")
    if review is not None:
        note_error = context.get("note_error")
        row_id = _e(links.id)
        note_url = _e(links.note)
        undo_url = _e(links.undo)
        invalid = (
            f' aria-invalid="true" aria-describedby="note-error-{row_id}" autofocus'
            if note_error
            else ""
        )
        refused = undo_refusal(review, shared.user)
        if not refused:
            out.append(
                f'<form method="post" action="{undo_url}" hx-post="{undo_url}">\n{fields}\n'
                '<button type="submit" class="link" data-shortcut="u" title="Undo this verdict">'
                "Undo <kbd>u</kbd></button>\n</form>\n"
            )
        else:
            # A colleague's verdict has no undo: u shows why (desk.js), where the undo would be.
            out.append(
                '<p class="notice error refusal" role="alert" data-undo-refusal hidden>'
                f"{_e(refused)}</p>\n"
            )
        out.append(
            f'<details class="row-note"{" open" if note_error else ""}><summary class="small" '
            f'data-shortcut="e">{"Edit note" if review.note else "Add a note"} <kbd>e</kbd>'
            "</summary>\n"
            f'<form method="post" action="{note_url}" hx-post="{note_url}">\n{fields}\n'
            f'<label for="note-{row_id}">Note on #{row_id}</label>\n'
            f'<textarea id="note-{row_id}" name="note" rows="2" data-note-field{invalid}>'
            f"{_e(review.note)}</textarea>\n"
        )
        if note_error:
            out.append(
                f'<p class="notice error small" id="note-error-{row_id}" role="alert">'
                f"{_e(note_error)}</p>\n"
            )
        out.append(
            '<button type="submit">Save note</button> <span class="muted small"><kbd>Ctrl</kbd>+'
            "<kbd>Enter</kbd></span>\n</form>\n</details>\n"
        )
    out.append("</div>\n</td>\n")
    return "".join(out)


def _note_asked(context, shared: _Shared, links, error) -> str:
    """Reason "other"'s note field for this row."""
    return note_asked_form(
        csrf=shared.csrf,
        record_id=links.id,
        review_url=links.review,
        seen=links.seen,
        next_url=shared.back_to_list,
        row_list=shared.list_name,
        htmx=True,
        error=error,
        note=context.get("other_note"),
    )


def note_asked_form(
    *, csrf, record_id, review_url, seen, next_url, row_list, htmx, error, note, mode=""
) -> str:
    """Reason "other" needs a note (services.reviews.note_required, the one rule): the false
    positive asked for again with its note field. Its one home, shared by a list row
    (`row_list`), review mode (`mode` "review", htmx) and the record view (_note_asked.html).
    `error`: the rule's message after a post without one; `review_url`: where the verdict is
    posted (record_review of `record_id`)."""
    record_id, review_url = _e(record_id), _e(review_url)
    hidden = [
        f'<input type="hidden" name="row" value="{_e(row_list)}">' if row_list else "",
        f'<input type="hidden" name="mode" value="{_e(mode)}">' if mode else "",
        f'<input type="hidden" name="next" value="{_e(next_url)}">' if next_url else "",
    ]
    invalid = (
        f' aria-invalid="true" aria-describedby="note-other-error-{record_id}" autofocus'
        if error
        else ""
    )
    said = (
        f'<p class="notice error small" id="note-other-error-{record_id}" role="alert">'
        f"{_e(error)}</p>\n"
        if error
        else ""
    )
    posted = f' hx-post="{review_url}"' if htmx else ""
    return (
        f'<form class="note-asked" method="post" action="{review_url}"{posted}>\n'
        f'{csrf}<input type="hidden" name="seen" value="{_e(seen)}"><input type="hidden" '
        'name="verdict" value="false_positive"><input type="hidden" name="reason" '
        f'value="other">\n{"".join(hidden)}\n'
        f'<label for="note-other-{record_id}">Why is it not a copy? <span class="muted">'
        "(reason “other” needs a note)</span></label>\n"
        f'<textarea id="note-other-{record_id}" name="note" rows="2" required data-note-field'
        f"{invalid}>{_e(note) if note is not None else ''}</textarea>\n{said}"
        '<button type="submit" class="release">Release: other</button> <span class="muted '
        'small"><kbd>Ctrl</kbd>+<kbd>Enter</kbd> sends</span>\n</form>\n'
    )


@register.simple_tag(takes_context=True)
def note_asked(context):
    """note_asked_form of the context's record_id, review_url, seen, next, row_list, htmx,
    error, note and mode (_note_asked.html's names)."""
    get = context.get
    return mark_safe(  # every value escaped by note_asked_form
        note_asked_form(
            csrf=str(CsrfTokenNode().render(context)),
            record_id=get("record_id", ""),
            review_url=get("review_url", ""),
            seen=get("seen", ""),
            next_url=get("next", ""),
            row_list=get("row_list", ""),
            htmx=get("htmx"),
            error=get("error"),
            note=get("note"),
            mode=get("mode", ""),
        )
    )
