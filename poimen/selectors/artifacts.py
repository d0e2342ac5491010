"""The artifact pages: every artifact with what it excluded, and the records one matched."""

from django.db.models import Count
from django.db.models.functions import Length, Substr

from poimen.models import Artifact, Match, Record
from poimen.selectors.cache import cached
from poimen.selectors.common import PAGE_SIZE, SNIPPET_CHARS


def _exclusions_per_artifact() -> dict[int, int]:
    rows = (
        Record.objects.filter(status=Record.Status.EXCLUDED, best_artifact__isnull=False)
        .values("best_artifact_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {row["best_artifact_id"]: row["n"] for row in rows}


def artifact_list(*, kind: str = "") -> list[tuple[Artifact, int]]:
    """Artifacts with the number of records each excluded, most first."""
    excluded = cached("exclusions_per_artifact", _exclusions_per_artifact)
    artifacts = (
        Artifact.objects.defer("text", "shingles")
        .annotate(text_length=Length("text"))
        .order_by("kind", "name", "-emitted_at")
    )
    if kind:
        artifacts = artifacts.filter(kind=kind)
    rows = [(artifact, excluded.get(artifact.pk, 0)) for artifact in artifacts]
    rows.sort(key=lambda row: (row[0].kind, -row[1], row[0].name))
    return rows


def artifact_matches(artifact: Artifact, limit: int = PAGE_SIZE) -> list[Match]:
    return list(
        Match.objects.filter(artifact=artifact)
        .select_related("record", "record__review")
        .defer("record__text", "record__metadata", "record__coverage", "record__mixed_coverage")
        .annotate(snippet=Substr("record__text", 1, SNIPPET_CHARS + 1))
        .order_by("-overlap", "-id")[:limit]
    )


def artifact_names() -> list[str]:
    """Every artifact name the desk knows, once (for the artifact filter's completion)."""
    return list(Artifact.objects.order_by("name").values_list("name", flat=True).distinct())


def artifact_ids_named(value: str) -> tuple[int, ...]:
    """The artifacts called `value` ("name" or "kind:name"), every version."""
    rows = Artifact.objects.filter(name=value)
    kind, colon, name = value.partition(":")
    if colon and not rows.exists():
        rows = Artifact.objects.filter(kind=kind, name=name)
    return tuple(rows.order_by("id").values_list("id", flat=True))


def artifact_match_count(artifact: Artifact) -> int:
    """The artifact's stored matches, exactly: a range of the match table's artifact index."""
    return Match.objects.filter(artifact=artifact).count()
