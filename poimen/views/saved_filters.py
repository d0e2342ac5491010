"""A reviewer's saved filters: save the filters a list shows, apply, rename, delete; the page
that lists them. Each user sees only their own (anyone else's is a 404)."""

from django.contrib import messages
from django.http import Http404, QueryDict
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from poimen import selectors, services
from poimen.forms import ListFilterForm, SavedFilterForm
from poimen.models import SavedFilter
from poimen.services import InputError
from poimen.views.common import LISTS, render_page, safe_next


def _list_url(list_name: str, query: str) -> str:
    return "?".join(filter(None, [reverse(list_name), query]))


def _not_understood(form: ListFilterForm) -> str:
    return "; ".join(f"{name}: {' '.join(errors)}" for name, errors in form.errors.items())


def _filters_form(list_name: str, query: str) -> ListFilterForm:
    return ListFilterForm(QueryDict(query), with_verdict=list_name == "exclusions")


def _own(request, saved_id: int) -> SavedFilter:
    try:
        return selectors.saved_filter_of(request.user, saved_id)
    except SavedFilter.DoesNotExist:
        raise Http404("No such saved filter") from None


def _back(request) -> str:
    return safe_next(request, request.POST.get("next", ""), reverse("saved_filters"))


@require_GET
def saved_filters(request):
    """Every saved filter of this user, by list, with what each selects in words."""
    rows = []
    for saved in selectors.saved_filters_of(request.user):
        form = _filters_form(saved.list_name, saved.query)
        rows.append(
            {
                "saved": saved,
                "described": form.described(),
                "not_understood": _not_understood(form) if form.errors else "",
            }
        )
    name_max = SavedFilterForm.base_fields["name"].max_length
    context = {"rows": rows, "name_max": name_max}
    return render_page(request, "saved_filters.html", context)


@require_POST
def saved_filter_save(request):
    """Save the filters the list shows now (they come with the post) under a name."""
    list_name = request.POST.get("list", "")
    if list_name not in LISTS:
        raise Http404("No such list")
    query = services.saved_filter_query(request.POST.get("query", ""))
    back = _list_url(list_name, query)
    filters = _filters_form(list_name, query)
    form = SavedFilterForm(request.POST)
    if filters.errors:
        messages.error(
            request,
            f"Not saved: some filters were not understood ({_not_understood(filters)}). "
            "Correct them, then save.",
        )
    elif not form.is_valid():
        messages.error(request, f"Not saved: {' '.join(form.errors['name'])}")
    else:
        try:
            saved = services.saved_filter_save(
                user=request.user, list_name=list_name, name=form.cleaned_data["name"], query=query
            )
        except InputError as error:
            messages.error(request, f"Not saved: {error}.")
        else:
            messages.success(request, f"Filters saved as “{saved.name}”: {filters.described()}.")
    return redirect(back)


@require_GET
def saved_filter_apply(request, saved_id: int):
    """The list with a saved filter's filters. One that no longer parses (a kind since
    removed, a run since deleted) opens all the same, with the error named, not a failure."""
    saved = _own(request, saved_id)
    form = _filters_form(saved.list_name, saved.query)
    if form.errors:
        messages.error(
            request,
            f"The saved filter “{saved.name}” has filters that no longer apply "
            f"({_not_understood(form)}): they are ignored. Save the filters again to mend it.",
        )
    return redirect(_list_url(saved.list_name, saved.query))


@require_POST
def saved_filter_rename(request, saved_id: int):
    saved = _own(request, saved_id)
    form = SavedFilterForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Not renamed: {' '.join(form.errors['name'])}")
        return redirect(_back(request))
    old = saved.name
    try:
        services.saved_filter_rename(saved=saved, user=request.user, name=form.cleaned_data["name"])
    except InputError as error:
        messages.error(request, f"Not renamed: {error}.")
    else:
        messages.success(request, f"“{old}” is now “{saved.name}”.")
    return redirect(_back(request))


@require_POST
def saved_filter_delete(request, saved_id: int):
    saved = _own(request, saved_id)
    services.saved_filter_delete(saved=saved, user=request.user)
    messages.success(request, f"Saved filter “{saved.name}” deleted.")
    return redirect(_back(request))
