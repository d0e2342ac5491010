"""The ingest runs: whether the filter ran, the thresholds it used, the counts."""

from django.views.decorators.http import require_GET

from poimen import selectors
from poimen.views.common import render_page


@require_GET
def runs(request):
    return render_page(request, "runs.html", {"runs": selectors.run_list()[:200]})
