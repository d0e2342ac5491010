"""The URL shapes of a record's actions, reversed once a request and filled with each row's id.

A list page shows fifty rows of half a dozen links and forms each: `{% url %}` in the row
partial reversed them some 575 times a page, most of a list's server time at 10^6 records.
Here each shape is reversed once (with a stand-in id, cut around it), and the rows' links are
the shape with their ids in, so the URL patterns stay their own one home (poimen/urls.py).
"""

from dataclasses import dataclass

from django.urls import reverse

from poimen import verdicts

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
    """What a list row links to and posts to."""

    open: str  # the record view, with the list and its filters (for j/k and "next")
    artifact: str  # the best artifact's page ("" without one)
    review: str
    undo: str
    note: str


def rows_linked(rows: list, list_name: str, list_query: str) -> list:
    """Mark each row of list `list_name` with `links` (RowLinks) and `offered` (the verdicts
    the desk offers on it, poimen.verdicts), so that its partial asks neither `{% url %}` nor
    a filter per button. `list_query` is the list's filters, carried to the record view."""
    record, artifact = IdUrl.of("record"), IdUrl.of("artifact")
    review, undo, note = IdUrl.of("record_review"), IdUrl.of("record_undo"), IdUrl.of("record_note")
    open_query = "&".join(filter(None, [f"list={list_name}", list_query]))
    for row in rows:
        row.links = RowLinks(
            open=record(row.pk, open_query),
            artifact=artifact(row.best_artifact_id) if row.best_artifact_id else "",
            review=review(row.pk),
            undo=undo(row.pk),
            note=note(row.pk),
        )
        row.offered = verdicts.verdicts_offered(row)
    return rows
