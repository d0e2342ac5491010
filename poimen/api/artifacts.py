"""POST/GET /api/v1/artifacts: register what a memory system emits; list and read them."""

from datetime import datetime

from django.http import Http404
from ninja import Field, Router, Schema, Status
from ninja.errors import HttpError
from ninja.pagination import PageNumberPagination, paginate

from filter import ArtifactRecord, ManifestError
from poimen import selectors
from poimen.api.auth import require_permission
from poimen.api.errors import error_responses
from poimen.models import Artifact
from poimen.readers.base import text_problem
from poimen.services.artifacts import artifact_record_register
from poimen.services.common import InputError

router = Router(tags=["artifacts"])
REGISTER = "poimen.register_artifact"
# A page number past any table's end, so that its offset still fits the database's integer.
MAX_PAGE = 10**9


class BoundedPages(PageNumberPagination):
    """django-ninja's page numbers, with an upper bound: a huge page is a 400 naming it, not
    an offset the database refuses."""

    class Input(Schema):
        page: int = Field(1, ge=1, le=MAX_PAGE)
        page_size: int | None = Field(None, ge=1)


class ArtifactIn(Schema):
    """An artifact by its text, or a line of the manifest (`manifest_line`, the JSON object
    `export_manifest` writes: kind, name, sha256, shingles, emitted_at, shingling, text?)."""

    kind: str | None = None
    name: str | None = None
    text: str | None = None
    emitted_at: datetime | None = None
    manifest_line: dict | None = None


class ArtifactOut(Schema):
    id: int
    kind: str
    name: str
    sha256: str
    n_tokens: int
    has_text: bool
    emitted_at: datetime
    created_at: datetime
    manifest_appended: bool | None = Field(
        None, description="on registering: whether this request appended the manifest line"
    )

    @staticmethod
    def resolve_has_text(artifact: Artifact) -> bool:
        return bool(artifact.text)


class ArtifactDetailOut(ArtifactOut):
    text: str


def _artifact_record(payload: ArtifactIn) -> ArtifactRecord:
    if payload.manifest_line is not None:
        try:
            return ArtifactRecord.from_dict(payload.manifest_line, source="manifest_line")
        except ManifestError as error:
            raise HttpError(400, str(error)) from None
    missing = [f for f in ("kind", "name", "text") if getattr(payload, f) is None]
    if missing:
        missing = ", ".join(missing)
        raise HttpError(400, f"give kind, name and text (missing: {missing}), or a manifest_line")
    if not payload.text.strip():
        raise HttpError(400, f"{payload.kind}/{payload.name}: the artifact's text is empty")
    why = text_problem(payload.text)
    if why:
        raise HttpError(400, f"{payload.kind}/{payload.name}: the text {why}")
    try:
        return ArtifactRecord.from_text(
            kind=payload.kind, name=payload.name, text=payload.text, emitted_at=payload.emitted_at
        )
    except ValueError as error:  # a time out of range in UTC (filter.artifacts.as_utc)
        raise HttpError(400, f"emitted_at: {error}") from None


@router.post(
    "/artifacts",
    response={200: ArtifactOut, 201: ArtifactOut},
    summary="Register an artifact (201 new, 200 known already)",
    openapi_extra=error_responses(400, 401, 403, 413, 503),
)
def register(request, payload: ArtifactIn):
    """Stored once by (kind, name, sha256), its manifest line appended once; a new version
    of an artifact (other text, same name) is a new artifact. In force for the next check of
    every server process."""
    token = require_permission(request, REGISTER)
    try:
        registered = artifact_record_register(
            artifact_record=_artifact_record(payload), actor=token.user
        )
    except InputError as error:
        raise HttpError(400, str(error)) from None
    registered.artifact.manifest_appended = registered.appended
    return Status(201 if registered.created else 200, registered.artifact)


@router.get(
    "/artifacts",
    response=list[ArtifactOut],
    summary="Artifacts, oldest first",
    openapi_extra=error_responses(400, 401, 403, 503),
)
@paginate(BoundedPages, page_size=100)
def artifacts(request, kind: str = ""):
    """Paged by `page` (100 a page); `kind` keeps one kind."""
    require_permission(request, REGISTER)
    return selectors.api_artifacts(kind=kind)


@router.get(
    "/artifacts/{artifact_id}",
    response=ArtifactDetailOut,
    summary="One artifact",
    openapi_extra=error_responses(400, 401, 403, 404, 503),
)
def artifact(request, artifact_id: int):
    require_permission(request, REGISTER)
    try:
        return selectors.api_artifact(artifact_id)
    except Artifact.DoesNotExist:
        raise Http404(f"no artifact {artifact_id}") from None
