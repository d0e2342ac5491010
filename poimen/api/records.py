"""GET /api/v1/records/{source}/{id}: the decision stored for one record."""

from datetime import datetime

from django.http import Http404
from ninja import Router, Schema

from poimen import selectors
from poimen.api.auth import require_permission
from poimen.api.check import MatchOut, Status
from poimen.api.errors import error_responses
from poimen.models import Record
from poimen.services.common import status_in_force

router = Router(tags=["records"])


class StoredRecordOut(Schema):
    id: str
    source: str
    status: Status
    derived: bool
    review: str | None
    evidence_text: str | None = None
    session: str
    role: str
    run: int
    created_at: datetime
    matches: list[MatchOut]


@router.get(
    "/records/{source}/{path:external_id}",
    response=StoredRecordOut,
    openapi_extra=error_responses(401, 403, 404, 503),
    summary="The stored decision of one record (a reviewer's verdict first)",
)
def stored_record(request, source: str, external_id: str):
    require_permission(request, "poimen.check_records")
    if "\x00" in source or "\x00" in external_id:  # never stored, and PostgreSQL refuses it
        raise Http404(f"no record {external_id!r} from source {source!r}")
    record = _record(source, external_id)
    matches = [
        {
            "kind": m.artifact.kind,
            "name": m.artifact.name,
            "sha256": m.artifact.sha256,
            "overlap": round(m.overlap, 6),
            "threshold": m.threshold,
            "spans": m.spans,
        }
        for m in selectors.api_record_matches(record)
    ]
    return {
        "id": record.external_id,
        "source": record.source,
        "status": status_in_force(record),
        "derived": record.derived,
        "review": record.review.verdict if record.review_id else None,
        "evidence_text": record.evidence_text or None,
        "session": record.session,
        "role": record.role,
        "run": record.run_id,
        "created_at": record.created_at,
        "matches": matches,
    }


def _record(source: str, external_id: str) -> Record:
    """The record the path names. A source label may hold "/" as an id may ("team/laptops",
    "notes/2026/12.md"), so each place the path can be cut is tried, the shortest label
    first (as the route reads it)."""
    parts = external_id.split("/")
    for cut in range(len(parts)):
        label, rest = "/".join([source, *parts[:cut]]), "/".join(parts[cut:])
        try:
            return selectors.api_record(label, rest)
        except Record.DoesNotExist:
            continue
    raise Http404(f"no record {external_id!r} from source {source!r}")
