"""The overview: totals, counts per kind, review progress, recent runs, unfiltered runs."""

from django.views.decorators.http import require_GET

from poimen import selectors, services
from poimen.decision.artifact_index import stale_artifacts
from poimen.selectors import charts
from poimen.views.common import render_page


def _news(request) -> dict:
    """What the overview opens on: what changed since the user last looked (a full page load
    counts as looking; the counts' refresh does not), what waits, the checks, the chart."""
    since = services.overview_seen(user=request.user)
    over_time = selectors.exclusions_over_time()
    return {
        "changes": selectors.changes_since(since, request.user),
        "waiting": selectors.waiting_for(request.user),
        "checks": selectors.last_checks(),
        "over_time": over_time,
        "over_time_rows": [
            {"day": day, "counts": [s.counts[n] for s in over_time.series]}
            for n, day in enumerate(over_time.days)
        ],
        "time_chart": charts.exclusions_chart(over_time),
    }


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
    if not (request.htmx and request.htmx.target == "counts"):  # not the minute's refresh
        context.update(_news(request))
    return render_page(request, "overview.html", context, fragments=("content", "counts"))
