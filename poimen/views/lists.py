"""The exclusions and near-miss lists, and the bulk verdict over a filtered exclusions list
(or a random sample of it)."""

import secrets
from urllib.parse import parse_qsl, urlencode

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from poimen import selectors, services
from poimen.forms import BulkVerdictForm, SavedFilterForm
from poimen.models import Event, Review
from poimen.views import team
from poimen.views.common import (
    LISTS,
    list_form,
    list_query,
    list_url,
    render_page,
    require_review,
    safe_next,
)
from poimen.views.rows import rows_context

# A bulk verdict runs inside one request, a review and an event per record (about 0.5 ms each
# on PostgreSQL, written a thousand at a time): beyond this many, some ten seconds' work, the
# reviewer is asked to narrow the filters first.
BULK_LIMIT = 20_000


def _list_context(request, list_name: str):
    form = list_form(request, list_name)
    filters = form.filters()
    queryset = LISTS[list_name](filters=filters)
    page = selectors.page_of(queryset, sort=filters.sort, cursor=request.GET.get("after", ""))
    query = list_query(request)
    return {
        **rows_context(request, list_name, query),
        "form": form,
        "filters": filters,
        "queryset": queryset,
        "page": page,
        **selectors.list_thresholds(),
        "artifact_names": selectors.artifact_names,  # a callable: asked only by a full page
        # The reviewer's saved filters of this list: also asked only by a full page.
        "saved_filters": lambda: selectors.saved_filters_of(request.user, list_name),
        "save_filters_form": SavedFilterForm(auto_id="save-filters-%s"),
        **team.list_claims_context(request, page.items),  # claimed by X, and one's own
    }


def _last_bulk(request) -> Event | None:
    """The bulk verdict this reviewer just gave, while it can still be undone."""
    event_id = request.session.get("last_bulk")
    if not event_id:
        return None
    event = Event.objects.filter(pk=event_id, type=Event.Type.REVIEW_BULK).first()
    if event is None or services.bulk_undone(event) is not None:
        request.session.pop("last_bulk", None)
        return None
    return event


@require_GET
def exclusions(request):
    context = _list_context(request, "exclusions")
    context["last_bulk"] = _last_bulk(request)
    context["reviewed"] = context["page"].progress
    return render_page(request, "exclusions.html", context, fragments=("content", "results"))


@require_GET
def near_misses(request):
    context = _list_context(request, "near_misses")
    context["floor"] = selectors.report_floor()
    return render_page(request, "near_misses.html", context, fragments=("content", "results"))


@require_http_methods(["GET", "POST"])
def exclusions_bulk(request):
    """One verdict over the whole filtered set: a confirmation that says how many, and whose
    verdicts it would override, then apply.

    The set is selected again on the server when the verdict is applied; if it no longer has
    the size the reviewer confirmed, they are asked again. When records carry a colleague's
    verdict, the reviewer is asked once more, and again if that number moved."""
    require_review(request)
    form = list_form(request, "exclusions")
    filters = form.filters()
    queryset = selectors.exclusion_list(filters=filters)
    sample = _sample_asked(request)
    if sample:
        filtered = queryset.count()
        queryset = selectors.bulk_sample(queryset, size=sample["size"], seed=sample["seed"])
    chosen = _chosen_asked(request)
    choices = None
    if chosen:
        chosen_of = queryset.count()
        queryset = selectors.bulk_chosen(queryset, chosen)
    elif request.GET.get("choose"):
        choices = selectors.bulk_choices(queryset, sort=filters.sort)
    count = queryset.count()
    too_many = count > BULK_LIMIT
    colleagues = (
        selectors.colleague_verdicts(queryset, request.user) if count and not too_many else None
    )
    overrides = colleagues.count if colleagues else 0
    bulk_form = BulkVerdictForm(
        request.POST or None,
        initial={
            "verdict": request.GET.get("bulk_verdict") or Review.Verdict.CONFIRMED,
            "expected": count,
            "overrides_expected": overrides,
        },
    )
    changed = False
    ask_overrides = False
    refused = ""
    # A filter that did not parse is left out, which widens the set: never judge that set.
    unclear = bool(form.errors)
    if request.method == "POST" and bulk_form.is_valid() and not too_many and not unclear:
        asked = bulk_form.cleaned_data
        if asked["expected"] != count or (
            asked["overrides_confirmed"] and asked["overrides_expected"] != overrides
        ):
            changed = True
        elif overrides and not asked["overrides_confirmed"]:
            ask_overrides = True
        else:
            try:
                event = services.reviews_bulk(
                    records=queryset,
                    verdict=asked["verdict"],
                    note=asked["note"],
                    actor=request.user,
                    filters_described=form.described()
                    + (f" · a random sample of {count}" if sample else "")
                    + (f" · {count} chosen records" if chosen else ""),
                    overrides_expected=overrides,
                )
            except services.OverridesChanged:
                changed = True
                colleagues = selectors.colleague_verdicts(queryset, request.user)
                overrides = colleagues.count
            except ValidationError as error:  # the verdict does not fit one of the records
                refused = " ".join(error.messages)
            else:
                label = Review.Verdict(asked["verdict"]).label
                messages.success(request, f"{event.data['count']:,} records marked {label}.")
                request.session["last_bulk"] = event.pk
                return redirect(list_url("exclusions", list_query(request)))
        if changed or ask_overrides:
            bulk_form = BulkVerdictForm(
                initial={
                    "verdict": asked["verdict"],
                    "expected": count,
                    "note": asked["note"],
                    "overrides_expected": overrides,
                    "overrides_confirmed": ask_overrides,
                }
            )
    context = {
        "form": form,
        "bulk_form": bulk_form,
        "count": count,
        "colleagues": colleagues,
        "ask_overrides": ask_overrides,
        "changed": changed,
        "refused": refused,
        "too_many": too_many,
        "unclear": unclear,
        "bulk_limit": BULK_LIMIT,
        "list_query": list_query(request),
        "described": form.described(),
        "sample": {**sample, "of": filtered} if sample else None,
        "sample_sizes": selectors.SAMPLE_SIZES,
        "new_seed": secrets.randbelow(10**9),  # for "a random sample of N" links
        # A subset chosen record by record (partials/bulk_choose.html): the choices offered,
        # or the chosen ids kept in the form's address.
        "choices": choices,
        "chosen": {"gone": len(chosen) - count, "of": chosen_of} if chosen else None,
        "bulk_query": "&".join(
            filter(None, [list_query(request), urlencode([("chosen", pk) for pk in chosen])])
        ),
        "list_pairs": parse_qsl(list_query(request)),
        "choose_shown": selectors.CHOOSE_SHOWN,
    }
    status = 400 if request.method == "POST" and not (changed or ask_overrides) else 200
    return render_page(request, "exclusions_bulk.html", context, status=status)


def _sample_asked(request) -> dict | None:
    """A random sample of the filtered set, when the URL asks for one: its size (1 to
    SAMPLE_MAX) and seed; None for the whole set (or a request that does not parse)."""
    try:
        size, seed = int(request.GET["sample"]), int(request.GET["seed"])
    except (KeyError, ValueError):
        return None
    if not 1 <= size <= selectors.SAMPLE_MAX or not 0 <= seed < 10**9:
        return None
    return {"size": size, "seed": seed}


def _chosen_asked(request) -> list[int]:
    """The ids of records chosen one by one (?chosen=12&chosen=15), at most CHOSEN_MAX; empty
    for the whole set. An id that does not parse is left out (the count the reviewer confirms
    then says what is judged)."""
    ids = []
    for value in request.GET.getlist("chosen"):
        try:
            ids.append(int(value))
        except ValueError:
            continue
    return sorted(set(ids))[: selectors.CHOSEN_MAX]


@require_POST
def exclusions_bulk_undo(request, event_id: int):
    """Undo a bulk verdict as one unit (one event), then back to where it was asked."""
    require_review(request)
    event = get_object_or_404(Event, pk=event_id, type=Event.Type.REVIEW_BULK)
    try:
        undo = services.reviews_bulk_undo(event=event, actor=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        request.session.pop("last_bulk", None)
        kept = undo.data["kept"]
        messages.success(
            request,
            f"Bulk verdict undone: {undo.data['count']:,} records have their previous verdict "
            "again" + (f"; {kept:,} judged again since keep that verdict." if kept else "."),
        )
    return redirect(safe_next(request, request.POST.get("next", ""), reverse("exclusions")))
