"""What the JSON API reads: artifacts by kind, one artifact, one record by its key."""

from django.db.models import QuerySet

from poimen.models import Artifact, Match, Record


def api_artifacts(*, kind: str = "") -> QuerySet:
    """Artifacts oldest first (a stable order to page through), without their shingles."""
    artifacts = Artifact.objects.defer("shingles").order_by("pk")
    return artifacts.filter(kind=kind) if kind else artifacts


def api_artifact(artifact_id: int) -> Artifact:
    return Artifact.objects.defer("shingles").get(pk=artifact_id)


def api_record(source: str, external_id: str) -> Record:
    return Record.objects.select_related("review").get(source=source, external_id=external_id)


def api_record_matches(record: Record) -> list[Match]:
    return list(
        Match.objects.filter(record=record).select_related("artifact").order_by("-overlap", "id")
    )
