"""A row of the exclusions or near-miss list, judged in place: its own verdict, undo and note
URLs (views.judging applies them), each answered under htmx with the row again
(jinja2/partials/list_row.html), with why when what was asked was not done."""

from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_POST

from poimen import selectors
from poimen.views.common import LISTS, can_review, htmx_refusal, list_url, reason_keys
from poimen.views.judging import Screen, judge
from poimen.views.record import note_asked_page

# The row's one template, rendered alone by the Jinja2 backend.
ROW = "partials/list_row.html"


def rows_context(request, list_name: str, list_query: str) -> dict:
    """What the rows' partial needs of a page of list `list_name` with filters `list_query`:
    whether the reader judges (asked once a page, not once a row), the list to come back to,
    and a false positive's reasons with their keys."""
    return {
        "judge": can_review(request.user),
        "list_name": list_name,
        "list_query": list_query,
        "back_to_list": list_url(list_name, list_query),
        "reasons": reason_keys(),
    }


def _row(request, record, *, refusal: str = "", status: int = 200, **asked):
    """The row of `record` again; with `refusal`, why what was asked from it was not done;
    `asked` opens a row's note field with its error (note_error, the note of the verdict in
    force; other_error and other_note, the note reason "other" needs)."""
    list_name = request.resolver_match.kwargs["list_name"]
    row = selectors.list_row(record.pk)
    selectors.claims_shown([row])  # "claimed by X", as the list shows it
    context = {
        **rows_context(request, list_name, ""),
        "row": row,
        **asked,
        **selectors.list_thresholds(),
    }
    if refusal:
        return htmx_refusal(
            request,
            refusal,
            status=status,
            template=ROW,
            context=context,
            target=f"#row-{record.pk}",
            swap="outerHTML",
        )
    return render(request, ROW, context)


def _note_asked(request, record, note: str, error: str):
    if request.htmx:
        return _row(request, record, other_error=error, other_note=note)
    return note_asked_page(request, record, note, error)


SCREEN = Screen(
    done=lambda request, record, message: _row(request, record),
    refused=lambda request, record, refusal, status, on_screen: _row(
        request, record, refusal=refusal, status=status
    ),
    note_asked=_note_asked,
    note_refused=lambda request, record, error: _row(request, record, note_error=error),
)


def _judged(action: str):
    @require_POST
    def view(request, list_name: str, record_id: int):
        if list_name not in LISTS:
            raise Http404("No such list")
        return judge(request, record_id, action, SCREEN)

    view.__name__ = f"row_{action}"
    view.__doc__ = f"A list row's {action}, the row again."
    return view


row_review = _judged("verdict")
row_undo = _judged("undo")
row_note = _judged("note")
