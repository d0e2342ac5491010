"""The artifacts per kind, and one artifact with the records that match it."""

from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from poimen import selectors
from poimen.models import Artifact
from poimen.views.common import render_page


@require_GET
def artifacts(request):
    kind = request.GET.get("kind", "")
    kinds = selectors.kinds_known()
    if kind not in kinds:
        kind = ""
    context = {"rows": selectors.artifact_list(kind=kind), "kinds": kinds, "kind": kind}
    return render_page(request, "artifacts.html", context, fragments=("content", "results"))


@require_GET
def artifact(request, artifact_id: int):
    artifact = get_object_or_404(Artifact.objects.defer("shingles"), pk=artifact_id)
    part = request.GET.get("part", "")
    number = int(part) if part.isascii() and part.isdigit() else None
    context = {
        "heatmap": selectors.artifact_heatmap(artifact),
        "copies": selectors.part_copies(artifact, number) if number else None,
        "part_asked": part,
        "heatmap_part_words": selectors.heatmap.PART_MAX_WORDS,
        "artifact": artifact,
        "matches": selectors.artifact_matches(artifact),
        "match_count": selectors.artifact_match_count(artifact),
        "threshold": selectors.threshold_for(artifact.kind),
    }
    return render_page(request, "artifact.html", context, fragments=("content", "copies"))
