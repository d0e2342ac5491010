"""The verdict buttons ask poimen.team.verdicts which verdicts to offer: `{% load verdicts %}`,
then `{% for verdict in record|verdicts_offered %}`."""

from django import template

from poimen import services
from poimen.team import verdicts

register = template.Library()


@register.filter
def verdicts_offered(record) -> list:
    return verdicts.verdicts_offered(record)


@register.filter
def note_needed(review) -> bool:
    """Whether `review` may not lose its note (the review service's rule, asked here so that
    its note field is marked required)."""
    return services.note_required(review.reason, "")


@register.filter
def undoable_by(review, user) -> bool:
    """Whether `user` is offered an undo of `review`, the verdict in force (one's own only:
    verdicts.undo_refusal, which the review service enforces):
    `{% if review|undoable_by:user %}`."""
    return verdicts.undoable_by(review, user)


@register.filter
def undo_refusal(review, user) -> str:
    """Why `user` has no undo of `review` ("" when they have one): verdicts.undo_refusal,
    told where the undo would be (a list row's u)."""
    return verdicts.undo_refusal(review, user)
