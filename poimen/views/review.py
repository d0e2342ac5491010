"""Review mode: the next unreviewed record of a filtered list, one after the other, with how
many of the list are reviewed and how many are left; a verdict moves on without a page load."""

from django.http import Http404
from django.urls import reverse
from django.views.decorators.http import require_GET

from poimen import selectors
from poimen.views import team
from poimen.views.common import LISTS, list_form, list_query, render_page, require_review
from poimen.views.record import record_context


@require_GET
def review(request):
    require_review(request)
    list_name = request.GET.get("list", "exclusions")
    if list_name not in LISTS:
        raise Http404("No such list")
    filters = list_form(request, list_name).filters()
    # Records another reviewer holds are not served (team.review_pool); claimed=mine keeps
    # to the reviewer's own batch.
    listed, claimed = team.review_pool(request, LISTS[list_name](filters=filters))
    after = request.GET.get("after", "")
    # Read whole (selectors.for_detail): the record view shows it without reading it again.
    found = selectors.next_unreviewed(selectors.for_detail(listed), sort=filters.sort, cursor=after)
    query = "&".join(filter(None, [f"list={list_name}", list_query(request), claimed]))
    here = f"{reverse('review')}?{query}"
    context = {
        "progress": selectors.review_progress(listed),
        "list_name": list_name,
        "list_query": list_query(request),
        "review_url": here,
        "skipped": bool(after),
        "claimed": claimed,
    }
    if found is None:
        return render_page(request, "review_done.html", context)
    record, cursor = found
    context.update(record_context(request, record, list_name, neighbours=False))
    # After a verdict or a skip, on from this record: the ones skipped are not shown again
    # until the reviewer starts over.
    context.update(review_mode=True, review_next=f"{here}&after={cursor}")
    return render_page(request, "record.html", context, fragments=("content", "comparison"))
