"""A record: side by side with the artifact it matched, its history; verdicts and undo."""

import json

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from poimen import selectors, services
from poimen.forms import NoteForm, SeenReviewForm, VerdictForm
from poimen.models import Record, Review
from poimen.views.common import (
    LISTS,
    htmx_refusal,
    list_form,
    list_query,
    list_url,
    render_page,
    require_review,
    safe_next,
)
from poimen.views.links import reason_keys, rows_linked


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


def _row(request, record: Record, list_name: str, *, refusal: str = "", status: int = 200, **asked):
    """The row of `record` again; with `refusal`, why what was asked from it was not done;
    `asked` opens a row's note field with its error (note_error, the note of the verdict in
    force; other_error, the note reason "other" needs)."""
    row = selectors.list_row(record.pk)
    selectors.claims_shown([row])  # "claimed by X", as the list shows it
    context = {
        **rows_linked([row], list_name, ""),
        "row": row,
        "list_name": list_name,
        "list_query": "",
        **asked,
        **selectors.list_thresholds(),
    }
    if refusal:
        return htmx_refusal(
            request,
            refusal,
            status=status,
            template="_list_results.html#row",
            context=context,
            target=f"#row-{record.pk}",
            swap="outerHTML",
        )
    return render(request, "_list_results.html#row", context)


def _note_asked(request, record: Record, form: VerdictForm, error: str):
    """Reason "other" chosen without a note: the verdict is asked again, with the note field
    and the rule's message, wherever it was chosen (a list row, review mode, the record view)."""
    row = request.POST.get("row", "")
    note = form.cleaned_data["note"]
    if request.htmx and row in LISTS:
        return _row(request, record, row, other_error=error, other_note=note)
    asked = {
        "record_id": record.pk,
        "review_url": reverse("record_review", args=[record.pk]),
        "seen": request.POST.get("seen", ""),
        "next": safe_next(request, request.POST.get("next", ""), ""),
        "mode": "review" if request.POST.get("mode") == "review" else "",
        "error": error,
        "note": note,
    }
    if request.htmx:
        # Review mode: the verdict form alone becomes the question (no page load).
        response = render(request, "_note_asked.html", {**asked, "htmx": True})
        response["HX-Retarget"] = "#verdict-form"
        response["HX-Reswap"] = "innerHTML"
        return response
    context = record_context(request, selectors.record_detail(record.pk), "")
    # Rendered by the POST: the page's own forms come back to the record, not to the post.
    context.update(asked=asked, page_url=reverse("record", args=[record.pk]))
    return render(request, "record.html", context, status=400)


def _after_verdict(request, record: Record, message: str):
    """htmx from a list row: the row again. Otherwise on to `next` (the following record)."""
    row = request.POST.get("row", "")
    if request.htmx and row in LISTS:
        return _row(request, record, row)
    following = safe_next(request, request.POST.get("next", ""), "")
    if request.htmx and request.POST.get("mode") == "review" and following:
        # Review mode: on to the next record without a page load (htmx fetches it into main
        # and pushes its URL).
        location = json.dumps({"path": following, "target": "#main"})
        return HttpResponse(status=204, headers={"HX-Location": location})
    if message:
        messages.success(request, message)
    fallback = reverse("record", args=[record.pk])
    return redirect(safe_next(request, request.POST.get("next", ""), fallback))


def _refused(request, record: Record, error: ValidationError, *, on_screen: bool = True):
    """Why a verdict, an undo or a note was not recorded, told where it was asked: for htmx in
    the list row or in review mode with the record as it now stands (lost to another
    reviewer's verdict: theirs, and who gave it), else in the page; without htmx, on the
    record page. `on_screen` False: review mode shows another record than `record` (a note
    on the reviewer's last verdict), and that page is shown again."""
    refusal = " ".join(error.messages)
    if not request.htmx:
        messages.error(request, refusal)
        return redirect(reverse("record", args=[record.pk]))
    # A race lost, a note the rule asks for, an undo of a colleague's verdict: ordinary use;
    # anything else is a request the desk's own controls do not make.
    ordinary = isinstance(
        error, services.ReviewConflict | services.NoteRequired | services.UndoRefused
    )
    status = 200 if ordinary else 400
    row = request.POST.get("row", "")
    if row in LISTS:
        return _row(request, record, row, refusal=refusal, status=status)
    if request.POST.get("mode") == "review":
        # Review mode is built on record_context: its view module imports this one.
        from poimen.views.review import review_refused

        return review_refused(request, refusal, status=status, record=record if on_screen else None)
    return htmx_refusal(request, refusal, status=status)


def _bad_post(request, record: Record, refusal: str, *, on_screen: bool = True):
    """A post no control of the desk makes (a form that does not parse): 400, and under htmx
    told where it was asked, as any refusal."""
    if request.htmx:
        return _refused(request, record, ValidationError(refusal), on_screen=on_screen)
    return HttpResponse(refusal, status=400)


@require_POST
@transaction.atomic  # a failure after the write (rendering the answer) records nothing
def record_review(request, record_id: int):
    require_review(request)
    record = get_object_or_404(Record, pk=record_id)
    form = VerdictForm(request.POST)
    if not form.is_valid():
        return _bad_post(request, record, "That verdict is not one of the choices.")
    verdict = form.cleaned_data["verdict"]
    try:
        services.review_record(
            record=record,
            verdict=verdict,
            note=form.cleaned_data["note"],
            reason=form.cleaned_data["reason"],
            actor=request.user,
            seen_review_id=form.seen_review_id(),
        )
    except services.NoteRequired as error:
        return _note_asked(request, record, form, str(error))
    except ValidationError as error:
        return _refused(request, record, error)
    label = Review.Verdict(verdict).label
    return _after_verdict(request, record, f"Record #{record.pk}: {label}.")


@require_POST
@transaction.atomic
def record_undo(request, record_id: int):
    require_review(request)
    record = get_object_or_404(Record, pk=record_id)
    form = SeenReviewForm(request.POST)
    if not form.is_valid():
        return _bad_post(request, record, "The verdict seen is not a review id.")
    try:
        services.review_undo(
            record=record, actor=request.user, seen_review_id=form.seen_review_id()
        )
    except ValidationError as error:
        return _refused(request, record, error)
    return _after_verdict(request, record, f"Record #{record.pk}: verdict undone.")


@require_POST
@transaction.atomic
def record_note(request, record_id: int):
    """Add or change the note of the verdict in force, from a list row (the row again), the
    record view or the review mode, without judging again."""
    require_review(request)
    record = get_object_or_404(Record, pk=record_id)
    form = NoteForm(request.POST)
    if not form.is_valid():
        errors = "; ".join(f"{name}: {' '.join(e)}" for name, e in form.errors.items())
        return _bad_post(request, record, f"The note was not saved: {errors}", on_screen=False)
    try:
        services.review_note(
            record=record,
            note=form.cleaned_data["note"],
            actor=request.user,
            seen_review_id=form.seen_review_id(),
        )
    except services.NoteRequired as error:
        row = request.POST.get("row", "")
        if request.htmx and row in LISTS:
            return _row(request, record, row, note_error=str(error))
        return _refused(request, record, error, on_screen=False)
    except ValidationError as error:
        return _refused(request, record, error, on_screen=False)
    return _after_verdict(request, record, f"Record #{record.pk}: note saved.")
