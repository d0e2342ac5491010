"""Reviewers' verdicts: they outrank the filter until someone changes them; an event each."""

from django.db import transaction
from django.utils import timezone

from poimen.models import Event, Record, Review
from poimen.services.common import InputError, status_in_force
from poimen.services.second_review import second_review_route
from poimen.team.verdicts import overridden, undo_refusal, verdict_misfit

REVIEW_EVENTS = {
    Review.Verdict.CONFIRMED: Event.Type.REVIEW_CONFIRMED,
    Review.Verdict.FALSE_POSITIVE: Event.Type.REVIEW_FALSE_POSITIVE,
    Review.Verdict.FALSE_NEGATIVE: Event.Type.REVIEW_FALSE_NEGATIVE,
}


def _review_snapshot(record: Record, old_status: str) -> dict:
    best = record.best_artifact
    return {
        "source": record.source,
        "external_id": record.external_id,
        "from": old_status,
        "to": record.status,
        "derived": record.derived,
        "best_overlap": record.best_overlap,
        "artifact": {"kind": best.kind, "name": best.name} if best else None,
    }


def _review_apply(record: Record, verdict, actor, note: str, reason: str = "") -> Review:
    overrides = overridden(record.review, actor)  # a colleague's verdict in force, if any
    review = Review.objects.create(
        record=record, verdict=verdict, note=note, reviewer=actor, reason=reason
    )
    old_status = record.status
    record.review = review
    record.status = review.status_for(record)
    record.save(update_fields=["review", "status"])
    event = _review_event(record, old_status, verdict, actor, note)
    if reason:
        event.data["reason"] = Review.Reason(reason).label
    if overrides:
        event.data["overrides"] = overrides
    event.save()
    return review


def _review_event(record: Record, old_status: str, verdict, actor, note: str) -> Event:
    best = record.best_artifact
    return Event.objects.log(
        REVIEW_EVENTS[verdict],
        actor=actor,
        record=record,
        artifact=best,
        kind=best.kind if best else "",
        data={**_review_snapshot(record, old_status), "verdict": verdict.value, "note": note},
        save=False,
    )


def _verdict(value: str) -> Review.Verdict:
    try:
        return Review.Verdict(value)
    except ValueError:
        choices = ", ".join(Review.Verdict.values)
        raise InputError(f"verdict {value!r} is not one of {choices}") from None


class ReviewConflict(InputError):
    """Another reviewer's verdict landed between the page being shown and this one posted.

    `current` is the verdict in force (None when theirs was an undo): the desk shows it."""

    def __init__(self, record: Record, current: Review | None):
        self.record = record
        self.current = current
        if current is None:
            # Who withdrew it, and when: the undo's event says.
            undo = (
                Event.objects.filter(record=record, type=Event.Type.REVIEW_UNDONE)
                .select_related("actor")
                .order_by("-pk")
                .first()
            )
            who = undo.actor.get_username() if undo and undo.actor else "someone"
            when = f" at {undo.created_at:%H:%M:%S}" if undo else ""
            said = f"{who} withdrew the verdict you saw{when}"
        else:
            who = current.reviewer.get_username() if current.reviewer else "someone"
            said = (
                f"{who} judged it {current.get_verdict_display()} at {current.created_at:%H:%M:%S}"
            )
        super().__init__(
            f"record #{record.pk}: {said} while you were deciding; that holds and yours was "
            "not recorded. Look again and judge it if you still disagree."
        )


# The longest note a verdict takes (the desk's note fields say the same).
NOTE_MAX_LENGTH = 2000

# Passed as `seen_review_id` by a caller that does not know what the reviewer saw.
UNCHECKED = object()


def _locked(record_id: int) -> Record:
    return (
        Record.objects.select_for_update(of=("self",))
        .select_related("best_artifact", "review", "review__reviewer")
        .get(pk=record_id)
    )


def _check_seen(record: Record, seen_review_id) -> None:
    """Optimistic concurrency on a record's review: the verdict in force must be the one the
    reviewer saw (its id, None for none), else the later of two racing verdicts is refused."""
    if seen_review_id is not UNCHECKED and record.review_id != seen_review_id:
        raise ReviewConflict(record, record.review)


class UndoRefused(InputError):
    """An undo of a colleague's verdict (verdicts.undo_refusal): ordinary use (a page opened
    before they judged, a key pressed on their row), told where it was asked."""


class NoteRequired(InputError):
    """Reason "other" says nothing by itself: the note says why. Raised by every entry point
    (a verdict from a list row, the record view, the review mode, a note edited later), so
    the desk asks for the note wherever "other" was chosen."""

    def __init__(self):
        super().__init__(NOTE_REQUIRED)


# The one message of the rule, shown beside the note field that asks for it.
NOTE_REQUIRED = "Reason “other” needs a note: say why this is not a copy."


def note_required(reason: str, note: str) -> bool:
    """The rule: a false positive for reason "other" has a note that is not blank."""
    return reason == Review.Reason.OTHER and not note.strip()


def _reason(verdict: Review.Verdict, reason: str, note: str) -> str:
    if not reason:
        return ""
    if reason not in Review.Reason.values:
        raise InputError(f"reason {reason!r} is not one of {', '.join(Review.Reason.values)}")
    if verdict != Review.Verdict.FALSE_POSITIVE:
        raise InputError("only a false positive has a reason")
    if note_required(reason, note):
        raise NoteRequired()
    return reason


def review_record(
    *,
    record: Record,
    verdict: str,
    actor,
    note: str = "",
    reason: str = "",
    seen_review_id=UNCHECKED,
) -> Review:
    """A reviewer's verdict: it outranks the filter until someone changes it; an event each.
    With `seen_review_id` (the review in force when the reviewer looked, None for none), a
    verdict another reviewer gave meanwhile is not overwritten: ReviewConflict."""
    verdict = _verdict(verdict)
    note = note.strip()
    reason = _reason(verdict, reason, note)
    with transaction.atomic():
        record = _locked(record.pk)
        _check_seen(record, seen_review_id)
        misfit = verdict_misfit(record, verdict)  # the rule the desk's buttons ask too
        if misfit:
            raise InputError(misfit)
        review = _review_apply(record, verdict, actor, note, reason)
        second_review_route(review=review, record=record)  # a borderline share, seen twice
        return review


def review_undo(*, record: Record, actor, note: str = "", seen_review_id=UNCHECKED) -> Record:
    """Withdraw `actor`'s own verdict in force: the verdict it replaced holds again, or the
    filter's decision if there was none (a new event; the withdrawn review is kept, marked
    withdrawn). A colleague's verdict is not withdrawn (verdicts.undo_refusal): a new verdict
    overrides it, on the record. With `seen_review_id`, only that verdict is withdrawn (not
    one given since)."""
    with transaction.atomic():
        record = _locked(record.pk)
        if record.review_id is None:
            raise InputError(undo_refusal(None, actor))
        _check_seen(record, seen_review_id)
        refusal = undo_refusal(record.review, actor)
        if refusal:
            raise UndoRefused(refusal)
        undone = record.review
        old_status = record.status
        undone.withdrawn_at = timezone.now()
        undone.save(update_fields=["withdrawn_at"])
        record.review = _review_replaced_by(undone)
        record.status = status_in_force(record)
        record.save(update_fields=["review", "status"])
        best = record.best_artifact
        Event.objects.log(
            Event.Type.REVIEW_UNDONE,
            actor=actor,
            record=record,
            artifact=best,
            kind=best.kind if best else "",
            data={
                **_review_snapshot(record, old_status),
                "undone": {"verdict": undone.verdict, "review": undone.pk},
                "restored": (
                    {"verdict": record.review.verdict, "review": record.review.pk}
                    if record.review
                    else None
                ),
                "note": note,
            },
        )
    return record


def review_note(*, record: Record, note: str, actor, seen_review_id=UNCHECKED) -> Review:
    """Add, change or clear the note of the verdict in force on `record` (the verdict itself
    stays): an event keeps the note before. With `seen_review_id`, only on the verdict the
    reviewer saw (one given since is not annotated in their name): ReviewConflict."""
    note = note.strip()
    if len(note) > NOTE_MAX_LENGTH:
        raise InputError(f"a note is at most {NOTE_MAX_LENGTH:,} characters, not {len(note):,}")
    with transaction.atomic():
        record = _locked(record.pk)
        if record.review_id is None:
            raise InputError(f"record #{record.pk} has no verdict to add a note to")
        _check_seen(record, seen_review_id)
        review = record.review
        if note_required(review.reason, note):
            raise NoteRequired()
        previous = review.note
        if note == previous:
            return review
        review.note = note
        review.save(update_fields=["note"])
        best = record.best_artifact
        Event.objects.log(
            Event.Type.REVIEW_NOTED,
            actor=actor,
            record=record,
            artifact=best,
            kind=best.kind if best else "",
            data={
                "source": record.source,
                "external_id": record.external_id,
                "verdict": review.verdict,
                "review": review.pk,
                "note": note,
                "previous_note": previous,
            },
        )
    return review


def _review_replaced_by(review: Review) -> Review | None:
    """The verdict that was in force when `review` was given: the latest earlier review of
    the record that has not been withdrawn itself. A mis-keyed verdict undone loses nothing."""
    return (
        Review.objects.filter(record_id=review.record_id, pk__lt=review.pk, withdrawn_at=None)
        .order_by("-pk")
        .first()
    )
