"""GET /api/v1/health: up, the database reachable, the index version, the artifact count, and
the artifacts whose shingles are not this version's (poimen/decision/artifact_index.py's
stale_artifacts): "degraded" while some cannot be matched at all (every check is refused)."""

from django.db import DatabaseError
from ninja import Router, Schema, Status

from poimen.api.errors import limits
from poimen.decision.artifact_index import stale_artifacts
from poimen.decision.index_version import index_state

router = Router(tags=["health"])


class Limits(Schema):
    records: int
    bytes: int


class HealthOut(Schema):
    status: str
    database: str
    index_version: str | None
    artifacts: int | None
    # without text, shingles of an earlier normaliser: matched as they stand
    stale_artifacts: list[str] = []
    # without text, shingles this version cannot match: checks are refused until fixed
    unusable_artifacts: list[str] = []
    notice: str | None = None
    limits: Limits


@router.get("/health", response={200: HealthOut, 503: HealthOut}, auth=None, summary="Health")
def health(request):
    """No token needed. 503 when the database cannot be reached."""
    try:
        state = index_state()
        stale = stale_artifacts()
    except DatabaseError as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else "error"
        return Status(
            503,
            {
                "status": "unavailable",
                "database": f"unreachable: {first_line}",
                "index_version": None,
                "artifacts": None,
                "limits": limits(),
            },
        )
    return Status(
        200,
        {
            "status": "degraded" if stale.unusable else "ok",
            "database": "ok",
            "index_version": state.version,
            "artifacts": state.artifacts,
            "stale_artifacts": stale.readable,
            "unusable_artifacts": stale.unusable,
            "notice": stale.warning() if stale else None,
            "limits": limits(),
        },
    )
