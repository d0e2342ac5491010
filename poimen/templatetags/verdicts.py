"""The verdict buttons ask poimen.verdicts which verdicts to offer: `{% load verdicts %}`,
then `{% for verdict in record|verdicts_offered %}`."""

from django import template

from poimen import services, verdicts
from poimen.models import Review

register = template.Library()


@register.filter
def verdicts_offered(record) -> list:
    return verdicts.verdicts_offered(record)


@register.simple_tag
def reason_choices() -> list:
    """A false positive's reasons (Review.Reason, their one home) as (value, label), in the
    order of their keys 1–4: `{% reason_choices as reasons %}`."""
    return Review.Reason.choices


@register.filter
def note_needed(review) -> bool:
    """Whether `review` may not lose its note (the review service's rule, asked here so that
    its note field is marked required)."""
    return services.note_required(review.reason, "")
