"""The overview: totals, counts per kind, review progress, recent runs, unfiltered runs."""

from django.views.decorators.http import require_GET

from poimen import selectors
from poimen.artifact_index import stale_artifacts
from poimen.views.common import render_page


@require_GET
def overview(request):
    counts = selectors.kind_counts()
    unfiltered = selectors.unfiltered_runs()
    context = {
        "totals": selectors.totals(),
        "counts": counts,
        "judged": sum(c.reviewed for c in counts),
        "left": sum(c.unreviewed for c in counts),
        "recent_runs": selectors.recent_runs(),
        "unchecked_runs": [run for run in unfiltered if run.refiltered is None],
        "refiltered_runs": [run for run in unfiltered if run.refiltered is not None],
        "floor": selectors.report_floor(),
        "stale": stale_artifacts(),
    }
    return render_page(request, "overview.html", context, fragments=("content", "counts"))
