"""{% record_copies %}: every artifact a record decided across kinds copies, each with where its
passages lie in the record (selectors.record_copies), drawn by partials/record_copies.html."""

from django import template

from poimen import selectors

register = template.Library()


@register.inclusion_tag("partials/record_copies.html", takes_context=True)
def record_copies(context, record, matches, across):
    # Only a record whose matches of several kinds were added up: for one artifact the side
    # by side says it all, and each alignment costs the record's length again.
    copies = selectors.record_copies(record, matches) if across and len(matches) > 1 else []
    return {
        "record": record,
        "copies": copies,
        "shown": context.get("shown"),
        "context_query": context.get("context_query", ""),
    }
