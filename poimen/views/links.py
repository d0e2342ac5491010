"""The URL shapes of a record's actions, reversed once a request and filled with each row's id.

A list page shows fifty rows of half a dozen links and forms each: `{% url %}` in the row
partial reversed them some 575 times a page, most of a list's server time at 10^6 records.
Here each shape is reversed once (with a stand-in id, cut around it), and the rows' links are
the shape with their ids in, so the URL patterns stay their own one home (poimen/urls.py).
"""

from dataclasses import dataclass

from django.urls import reverse
from django.utils.html import format_html

from poimen.models import Review
from poimen.models.reviews import REASON_DEFINITIONS
from poimen.team import verdicts
from poimen.views.common import list_url

# Any id the <int:…> converters accept: the reversed URL is cut around its digits.
STAND_IN_ID = 987654321


@dataclass(frozen=True)
class IdUrl:
    """A URL pattern with one id in it, as the text before and after the id."""

    before: str
    after: str

    @classmethod
    def of(cls, viewname: str) -> "IdUrl":
        url = reverse(viewname, args=[STAND_IN_ID])
        before, found, after = url.partition(str(STAND_IN_ID))
        if not found:
            raise ValueError(f"the URL of {viewname!r} does not carry its id: {url}")
        return cls(before, after)

    def __call__(self, pk: int, query: str = "") -> str:
        url = f"{self.before}{pk}{self.after}"
        return f"{url}?{query}" if query else url


@dataclass(frozen=True)
class RowLinks:
    """What a list row links to and posts to, and what its forms post, as text once."""

    id: str
    open: str  # the record view, with the list and its filters (for j/k and "next")
    artifact: str  # the best artifact's page ("" without one)
    review: str
    undo: str
    note: str
    seen: str  # the review in force that a verdict, undo or note answers ("0": none)
    hidden: str  # the fields every form of the row posts: its list, where to go next, seen


def rows_linked(rows: list, list_name: str, list_query: str) -> dict:
    """Mark each row of list `list_name` with `links` (RowLinks) and `offered` (the verdicts
    the desk offers on it, poimen.team.verdicts), so that its partial asks neither `{% url %}` nor
    a filter per button; `list_query` is the list's filters, carried to the record view.
    Returns what the rows' partial needs of the page: the list to come back to, and a false
    positive's reasons with their keys."""
    record, artifact = IdUrl.of("record"), IdUrl.of("artifact")
    review, undo, note = IdUrl.of("record_review"), IdUrl.of("record_undo"), IdUrl.of("record_note")
    open_query = "&".join(filter(None, [f"list={list_name}", list_query]))
    back_to_list = list_url(list_name, list_query)
    for row in rows:
        seen = str(row.review_id or 0)
        row.links = RowLinks(
            id=str(row.pk),
            open=record(row.pk, open_query),
            artifact=artifact(row.best_artifact_id) if row.best_artifact_id else "",
            review=review(row.pk),
            undo=undo(row.pk),
            note=note(row.pk),
            seen=seen,
            hidden=format_html(
                '<input type="hidden" name="row" value="{}"><input type="hidden" name="next" '
                'value="{}"><input type="hidden" name="seen" value="{}">',
                list_name,
                back_to_list,
                seen,
            ),
        )
        row.offered = verdicts.verdicts_offered(row)
    return {"back_to_list": back_to_list, "reason_keys": reason_keys()}


def reason_keys() -> list[tuple[str, str, str, str]]:
    """A false positive's reasons (Review.Reason, their one home) as (value, label, key,
    definition), the key that picks each being its place in that order (1-4), all as text."""
    return [
        (value, str(label), str(n), REASON_DEFINITIONS[value])
        for n, (value, label) in enumerate(Review.Reason.choices, 1)
    ]
