"""Review mode: the next unreviewed record of a filtered list, one after the other, with how
many of the list are reviewed and how many are left; a verdict moves on without a page load."""

import copy
import json
from urllib.parse import urlsplit

from django.contrib import messages
from django.http import Http404, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from poimen import selectors, services
from poimen.models import Record
from poimen.views import team
from poimen.views.common import (
    LISTS,
    htmx_refusal,
    list_form,
    list_query,
    render_page,
    require_review,
)
from poimen.views.judging import Screen, following, judge
from poimen.views.record import note_asked_page, record_context


@require_GET
def review(request):
    require_review(request)
    return _review_page(request)


def review_refused(request, refusal: str, *, status: int, record: Record | None = None):
    """A verdict or a note posted from review mode and not recorded (lost to another
    reviewer's verdict, say), told in place of the page, without a page load: `record`, the
    one on screen, again as it now stands (theirs in force, so that a verdict now overrules it
    knowingly); or, for a note on an earlier verdict, the page again as its URL shows it."""
    page_url = request.htmx.current_url_abs_path or reverse("review")
    going_on = following(request, page_url)
    asked = copy.copy(request)  # the filters and the batch of the page are in its URL
    asked.GET = QueryDict(urlsplit(page_url).query)
    shown = (record, going_on) if record is not None else None
    return _review_page(asked, shown=shown, refusal=refusal, status=status, page_url=page_url)


def _done(request, record: Record, message: str):
    """On to the next record without a page load (htmx fetches `next` into main and pushes
    its URL)."""
    going_on = following(request)
    if not going_on:
        messages.success(request, message)
        return redirect(reverse("record", args=[record.pk]))
    location = json.dumps({"path": going_on, "target": "#main"})
    return HttpResponse(status=204, headers={"HX-Location": location})


def _note_asked(request, record: Record, note: str, error: str):
    """Reason "other" without its note: the verdict form alone becomes the question."""
    if not request.htmx:
        return note_asked_page(request, record, note, error)
    asked = {
        "record_id": record.pk,
        "review_url": reverse("review_verdict", args=[record.pk]),
        "seen": request.POST.get("seen", ""),
        "next": following(request),
        "error": error,
        "note": note,
        "htmx": True,
    }
    response = render(request, "partials/note_asked.html", asked)
    response["HX-Retarget"] = "#verdict-form"
    response["HX-Reswap"] = "innerHTML"
    return response


SCREEN = Screen(
    done=_done,
    # A note on an earlier verdict is not of the record on screen: that page is shown again.
    refused=lambda request, record, refusal, status, on_screen: review_refused(
        request, refusal, status=status, record=record if on_screen else None
    ),
    note_asked=_note_asked,
)


@require_POST
def review_verdict(request, record_id: int):
    return judge(request, record_id, "verdict", SCREEN)


@require_POST
def review_undo(request, record_id: int):
    """Undo of the reviewer's last verdict: `next` brings that record back on screen."""
    return judge(request, record_id, "undo", SCREEN)


@require_POST
def review_note(request, record_id: int):
    return judge(request, record_id, "note", SCREEN)


# After an undo in review mode the record whose verdict was withdrawn comes back on screen, to
# be judged again (the undo form's `next`, record.html); past it, the list from the top, so
# that no record is left behind the cursor unseen (one skipped with j shows again too).
UNDONE = "undone"


def _undone_shown(request, listed, here: str):
    """The record named by `undone` with the URL that goes on past it, if it is in the list
    reviewed (`listed`); else None, and review mode serves the next unreviewed as usual."""
    value = request.GET.get(UNDONE, "")
    record = listed.filter(pk=int(value)).first() if value.isdigit() else None
    return (record, here) if record is not None else None


# How many records, taken by colleagues between the read and the hold, review mode passes
# over before it says "try again" (each one is a race lost within milliseconds).
HOLD_TRIES = 20


def _next_held(request, listed, *, sort: str, cursor: str, held: bool):
    """The next unreviewed record of `listed` after `cursor` and its cursor, held for the
    reviewer (services.record_hold) when `held` (plain review mode: the reviewer's claimed
    batch is theirs already); None when none is left."""
    for _ in range(HOLD_TRIES):
        # Read whole (selectors.for_detail): the record view shows it without reading it again.
        found = selectors.next_unreviewed(selectors.for_detail(listed), sort=sort, cursor=cursor)
        if found is None or not held:
            return found
        record, cursor = found
        if services.record_hold(record_id=record.pk, actor=request.user):
            return found
    return None


def _review_page(request, *, shown=None, refusal: str = "", status: int = 200, page_url: str = ""):
    """The next unreviewed record of the list in the query string; or `shown`, a record and
    the URL that goes on past it; with `refusal` and the `page_url` it stands for, rendered
    for a POST (review_refused)."""
    list_name = request.GET.get("list", "exclusions")
    if list_name not in LISTS:
        raise Http404("No such list")
    filters = list_form(request, list_name).filters()
    # Records another reviewer holds are not served (team.review_pool); claimed=mine keeps
    # to the reviewer's own batch.
    listed, counted, claimed = team.review_pool(request, LISTS[list_name](filters=filters))
    after = request.GET.get("after", "")
    query = "&".join(filter(None, [f"list={list_name}", list_query(request), claimed]))
    here = f"{reverse('review')}?{query}"
    context = {
        "progress": selectors.list_counts(counted),
        "list_name": list_name,
        "list_query": list_query(request),
        "review_url": here,
        "skipped": bool(after),
        "claimed": claimed,
    }
    if shown is None:
        shown = _undone_shown(request, listed, here)
    if shown is None:
        found = _next_held(request, listed, sort=filters.sort, cursor=after, held=not claimed)
        if found is None:
            if refusal:  # nothing left on that page now: the refusal alone
                return htmx_refusal(request, refusal, status=status)
            return render_page(request, "review_done.html", context)
        record, cursor = found
        # After a verdict or a skip, on from this record: the ones skipped are not shown
        # again until the reviewer starts over.
        following = f"{here}&after={cursor}"
    else:
        record, following = shown
        record = selectors.record_detail(record.pk)  # as it now stands, read whole
        if not claimed:
            services.record_hold(record_id=record.pk, actor=request.user)
    context.update(record_context(request, record, list_name, neighbours=False))
    context.update(review_mode=True, review_next=following)
    if refusal:
        context["page_url"] = page_url
        return htmx_refusal(
            request,
            refusal,
            status=status,
            template="record.html#content",
            context=context,
            target="#main",
        )
    return render_page(request, "record.html", context, fragments=("content", "comparison"))
