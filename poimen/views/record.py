"""A record: side by side with the artifact it matched, its history; verdicts, undo and notes
given on its page (views.judging applies them)."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from poimen import selectors
from poimen.forms import VerdictForm
from poimen.models import Record
from poimen.views.common import (
    LISTS,
    htmx_refusal,
    list_form,
    list_query,
    list_url,
    reason_keys,
    render_page,
)
from poimen.views.judging import Screen, following, judge


@require_GET
def record(request, record_id: int):
    try:
        record = selectors.record_detail(record_id)
    except Record.DoesNotExist:
        raise Http404("No such record") from None
    context = record_context(request, record, request.GET.get("list", ""))
    return render_page(request, "record.html", context, fragments=("content", "comparison"))


def record_context(request, record: Record, list_name: str, *, neighbours: bool = True) -> dict:
    """What the record page shows of `record`, opened from list `list_name` (or none); with
    `neighbours` False (review mode moves on by itself) no previous and next are looked up."""
    matches = selectors.record_matches(record)
    shown = matches[0] if matches else None
    wanted = request.GET.get("match")
    if wanted:
        shown = next((m for m in matches if str(m.pk) == wanted), shown)
    passages = selectors.passages_for(record, shown.artifact) if shown else []

    previous_id = next_id = None
    query = list_query(request)
    if list_name in LISTS and neighbours:
        filters = list_form(request, list_name).filters()
        previous_id, next_id = selectors.list_neighbours(
            LISTS[list_name](filters=filters), record, sort=filters.sort
        )
    context_query = (
        "&".join(filter(None, [f"list={list_name}", query])) if list_name in LISTS else ""
    )
    return {
        "record": record,
        "matches": matches,
        "shown": shown,
        "passages": passages,
        "threshold_now": selectors.threshold_for(shown.artifact.kind) if shown else None,
        "across": selectors.record_across_kinds(record),
        "events": selectors.record_events(record),
        "verdict_form": VerdictForm(),
        "reasons": reason_keys(),
        "last_verdict": _last_verdict(request, record),
        # Where the forms that come back to this page go back to (review mode's refusal is
        # rendered by a POST, and says which page it stands for).
        "page_url": request.get_full_path(),
        "list_name": list_name,
        "context_query": context_query,
        "previous_id": previous_id,
        "next_id": next_id,
        # Back to the list the record was opened from; opened from elsewhere, there is none.
        "back_url": list_url(list_name, query) if list_name in LISTS else "",
    }


def _last_verdict(request, record: Record):
    """The reviewer's own latest verdict still in force on another record: `u` undoes it, and
    then the one before (undo goes back as many levels as there are)."""
    if not request.user.has_perm("poimen.review_record"):
        return None
    last = selectors.latest_own_verdict(request.user)
    return last if last is not None and last.record_id != record.pk else None


def note_asked_page(request, record: Record, note: str, error: str):
    """Reason "other" chosen without a note, answered with a page: the record page again,
    its verdict form become the question, with the rule's message (status 400)."""
    context = record_context(request, selectors.record_detail(record.pk), "")
    asked = {
        "seen": request.POST.get("seen", ""),
        "next": following(request),
        "error": error,
        "note": note,
    }
    # Rendered by the POST: the page's own forms come back to the record, not to the post.
    context.update(asked=asked, page_url=reverse("record", args=[record.pk]))
    return render(request, "record.html", context, status=400)


def _refused(request, record: Record, refusal: str, status: int, on_screen: bool):
    return htmx_refusal(request, refusal, status=status)


def _done(request, record: Record, message: str):
    """On to `next` (the following record), the page telling what was recorded."""
    messages.success(request, message)
    return redirect(following(request, reverse("record", args=[record.pk])))


# The record page's forms post without htmx; an htmx post is answered alike.
SCREEN = Screen(
    done=_done,
    refused=_refused,
    note_asked=note_asked_page,
)


@require_POST
def record_review(request, record_id: int):
    return judge(request, record_id, "verdict", SCREEN)


@require_POST
def record_undo(request, record_id: int):
    return judge(request, record_id, "undo", SCREEN)


@require_POST
def record_note(request, record_id: int):
    """Add or change the note of the verdict in force without judging again."""
    return judge(request, record_id, "note", SCREEN)
