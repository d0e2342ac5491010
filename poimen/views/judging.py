"""Judging a record from any screen: a verdict, an undo or a note applied, then the answer the
screen gives. Each screen (the record page, review mode, a list row) posts to its own URL and
view, which hands this module a Screen saying how it answers; what every screen does alike
(the permission, the form, the service, which answer comes next) is here once, so that the
screens' modules need not import each other."""

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse

from poimen import services
from poimen.forms import NoteForm, SeenReviewForm, VerdictForm
from poimen.models import Record, Review
from poimen.views.common import require_review, safe_next


@dataclass(frozen=True)
class Screen:
    """How a screen answers a post under htmx (without htmx every screen answers alike: a
    redirect to `next`, or to the record page with the refusal as a message).

    done(request, record, message): the verdict, undo or note was recorded.
    refused(request, record, refusal, status, on_screen): it was not (`on_screen` False: the
        note or undo was of another record than the one the screen shows).
    note_asked(request, record, note, error): reason "other" came without its note.
    note_refused(request, record, error): a note the rule needs was emptied; by default a
        refusal like any other."""

    done: Callable
    refused: Callable
    note_asked: Callable
    note_refused: Callable | None = None


def following(request, fallback: str = "") -> str:
    """The post's `next`, if it stays on this site."""
    return safe_next(request, request.POST.get("next", ""), fallback)


def _done(request, screen: Screen, record: Record, message: str):
    if request.htmx:
        return screen.done(request, record, message)
    if message:
        messages.success(request, message)
    return redirect(following(request, reverse("record", args=[record.pk])))


def _refused(request, screen: Screen, record: Record, error, *, on_screen: bool = True):
    """Why a verdict, an undo or a note was not recorded, told where it was asked (htmx), else
    on the record page. A race lost, a note the rule asks for, an undo of a colleague's
    verdict are ordinary use (200); anything else is a request the desk's own controls do not
    make (400)."""
    refusal = " ".join(error.messages)
    if not request.htmx:
        messages.error(request, refusal)
        return redirect(reverse("record", args=[record.pk]))
    ordinary = isinstance(
        error, services.ReviewConflict | services.NoteRequired | services.UndoRefused
    )
    return screen.refused(request, record, refusal, 200 if ordinary else 400, on_screen)


def _bad_post(request, screen, record, refusal: str, *, on_screen: bool = True):
    """A post that does not parse: 400, and under htmx told where it was asked."""
    if request.htmx:
        return _refused(request, screen, record, ValidationError(refusal), on_screen=on_screen)
    return HttpResponse(refusal, status=400)


def judge(request, record_id: int, action: str, screen: Screen):
    """Apply `action` ("verdict", "undo" or "note") posted on record `record_id` and answer as
    `screen` does. Atomic: a failure after the write (rendering the answer) records nothing."""
    require_review(request)
    with transaction.atomic():
        record = get_object_or_404(Record, pk=record_id)
        return {"verdict": _verdict, "undo": _undo, "note": _note}[action](request, record, screen)


def _verdict(request, record: Record, screen: Screen):
    form = VerdictForm(request.POST)
    if not form.is_valid():
        return _bad_post(request, screen, record, "That verdict is not one of the choices.")
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
        return screen.note_asked(request, record, form.cleaned_data["note"], str(error))
    except ValidationError as error:
        return _refused(request, screen, record, error)
    label = Review.Verdict(verdict).label
    return _done(request, screen, record, f"Record #{record.pk}: {label}.")


def _undo(request, record: Record, screen: Screen):
    form = SeenReviewForm(request.POST)
    if not form.is_valid():
        return _bad_post(request, screen, record, "The verdict seen is not a review id.")
    try:
        services.review_undo(
            record=record, actor=request.user, seen_review_id=form.seen_review_id()
        )
    except ValidationError as error:
        return _refused(request, screen, record, error)
    return _done(request, screen, record, f"Record #{record.pk}: verdict undone.")


def _note(request, record: Record, screen: Screen):
    """Add or change the note of the verdict in force, without judging again."""
    form = NoteForm(request.POST)
    if not form.is_valid():
        errors = "; ".join(f"{name}: {' '.join(e)}" for name, e in form.errors.items())
        return _bad_post(
            request, screen, record, f"The note was not saved: {errors}", on_screen=False
        )
    try:
        services.review_note(
            record=record,
            note=form.cleaned_data["note"],
            actor=request.user,
            seen_review_id=form.seen_review_id(),
        )
    except services.NoteRequired as error:
        if request.htmx and screen.note_refused is not None:
            return screen.note_refused(request, record, str(error))
        return _refused(request, screen, record, error, on_screen=False)
    except ValidationError as error:
        return _refused(request, screen, record, error, on_screen=False)
    return _done(request, screen, record, f"Record #{record.pk}: note saved.")
