"""What the desk's views share: who may judge and tune, the page-or-fragment render, a safe
`next`, and the list filters that travel with a record opened from a list."""

from django.core.exceptions import PermissionDenied
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

from poimen import selectors
from poimen.forms import ListFilterForm

LISTS = {"exclusions": selectors.exclusion_list, "near_misses": selectors.near_miss_list}
# The filter parameters that travel with a record opened from a list (for j/k and "next").
LIST_PARAMS = [
    "q",
    "decision",
    "kind",
    "artifact",
    "overlap_min",
    "overlap_max",
    "verdict",
    "reason",
    "source",
    "run",
    "date_from",
    "date_to",
    "sort",
]


def can_tune(user) -> bool:
    """Threshold tuning needs the right to change a kind's policy."""
    return user.has_perm("poimen.tune_threshold") or user.has_perm("poimen.change_kindpolicy")


def can_review(user) -> bool:
    """Verdicts need the reviewers' permission; everyone logged in may read."""
    return user.has_perm("poimen.review_record")


def require_review(request) -> None:
    if not can_review(request.user):
        raise PermissionDenied("Verdicts need the permission to review records.")


def require_tune(request) -> None:
    if not can_tune(request.user):
        raise PermissionDenied("Tuning thresholds needs the permission to change kind policies.")


def render_page(request, template, context, *, fragments=("content",), status=200):
    """The whole page, or the one partial htmx targets (by the id of its element)."""
    if request.htmx and not request.htmx.history_restore_request:
        target = request.htmx.target
        name = target if target in fragments else "content"
        return render(request, f"{template}#{name}", context, status=status)
    return render(request, template, context, status=status)


def safe_next(request, url: str, fallback: str) -> str:
    """`url` if it stays on this site, else `fallback`."""
    if url and url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return url
    return fallback


def list_form(request, list_name: str) -> ListFilterForm:
    """The filters of list `list_name` from the query string (only exclusions have a verdict)."""
    return ListFilterForm(request.GET, with_verdict=list_name == "exclusions")


def list_query(request) -> str:
    """The list filters of this request as a query string, to carry to a record and back."""
    query = request.GET.copy()
    for key in list(query):
        if key not in LIST_PARAMS:
            del query[key]
    return query.urlencode()


def list_url(list_name: str, query: str) -> str:
    """List `list_name` with the filters `query` (a list_query), or without any."""
    return "?".join(filter(None, [reverse(list_name), query]))
