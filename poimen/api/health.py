"""GET /api/v1/health: up, the database reachable, the index version, the artifact count."""

from django.db import DatabaseError
from ninja import Router, Schema, Status

from poimen.api.errors import limits
from poimen.index_version import index_state

router = Router(tags=["health"])


class Limits(Schema):
    records: int
    bytes: int


class HealthOut(Schema):
    status: str
    database: str
    index_version: str | None
    artifacts: int | None
    limits: Limits


@router.get("/health", response={200: HealthOut, 503: HealthOut}, auth=None, summary="Health")
def health(request):
    """No token needed. 503 when the database cannot be reached."""
    try:
        state = index_state()
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
            "status": "ok",
            "database": "ok",
            "index_version": state.version,
            "artifacts": state.artifacts,
            "limits": limits(),
        },
    )
