"""What the desk's views share: who may judge and tune, the page-or-fragment render, how an
htmx request is told no, a safe `next`, the list filters that travel with a record opened
from a list, and a false positive's reasons with their keys."""

from django.core.exceptions import PermissionDenied
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import csrf, defaults

from poimen import selectors
from poimen.forms import ListFilterForm
from poimen.models import Review
from poimen.models.reviews import REASON_DEFINITIONS

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


# Where a refusal with no place of its own is shown (base.html): outside <main>, which review
# mode swaps whole, so it is there on every page.
REFUSAL_SLOT = "#refusal"


def htmx_refusal(
    request,
    refusal: str,
    *,
    status: int,
    template: str = "_refusal.html",
    context: dict | None = None,
    target: str = REFUSAL_SLOT,
    swap: str = "innerHTML",
):
    """Why what htmx asked was not done, shown where the reviewer is, without a page load: by
    default alone in the page's refusal slot; or `template` (which includes _refusal.html)
    swapped for `target`, to show it with the thing refused as it now stands (a list row, the
    record in review mode).

    `status` says what it was: 200 for an answer of ordinary use (a race lost to another
    reviewer, a note asked for), a 4xx for a request the desk's controls do not make. htmx
    swaps only a 2xx by itself; desk.js shows a 4xx that names its target (HX-Retarget)."""
    response = render(request, template, {**(context or {}), "refusal": refusal}, status=status)
    response["HX-Retarget"] = target
    response["HX-Reswap"] = swap
    return response


def permission_denied(request, exception):
    """handler403: the 403 page, or for htmx (which shows no error page) the refusal."""
    if getattr(request, "htmx", False):
        refusal = str(exception) or "Your account may not do that."
        return htmx_refusal(request, refusal, status=403)
    return defaults.permission_denied(request, exception)


# A page open since before the reviewer logged in again (in another tab, say) posts a token
# that no longer holds: what they can do about it.
STALE_PAGE = (
    "Not done: this page is older than your login (you logged in again since it was loaded). "
    "Reload it, then try again."
)


def csrf_failure(request, reason=""):
    """CSRF_FAILURE_VIEW: Django's 403 page, or for htmx the refusal, which says what to do."""
    if getattr(request, "htmx", False):
        return htmx_refusal(request, STALE_PAGE, status=403)
    return csrf.csrf_failure(request, reason=reason)


def page_not_found(request, exception):
    """handler404: the 404 page, or for htmx the refusal (a record gone since it was shown)."""
    if getattr(request, "htmx", False):
        # A URL that resolves to nothing carries a dict of what was tried, not words.
        said = exception.args[0] if exception.args else ""
        refusal = said if isinstance(said, str) and said else "That is not here any more."
        return htmx_refusal(request, refusal, status=404)
    return defaults.page_not_found(request, exception)


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


def reason_keys() -> list[tuple[str, str, str, str]]:
    """A false positive's reasons (Review.Reason, their one home) as (value, label, key,
    definition), the key that picks each being its place in that order (1-4), all as text."""
    return [
        (value, str(label), str(n), REASON_DEFINITIONS[value])
        for n, (value, label) in enumerate(Review.Reason.choices, 1)
    ]
