"""The ingest runs: whether the filter ran, the thresholds it used, the counts."""

from django.views.decorators.http import require_GET

from poimen import selectors
from poimen.views.common import render_page


@require_GET
def runs(request):
    runs = selectors.with_queue_progress(list(selectors.run_list()[:200]))
    shadow_sources = selectors.shadow_source_list()
    return render_page(request, "runs.html", {"runs": runs, "shadow_sources": shadow_sources})
