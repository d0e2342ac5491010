"""Every error the API answers is JSON: {"detail": "what is wrong and what to do"}."""

import json
import logging

from django.conf import settings
from django.db import DatabaseError
from django.http import Http404
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError

from poimen.api.auth import NO_TOKEN
from poimen.decision.artifact_index import ArtifactUnusable
from poimen.ledger.manifest import ManifestUnwritable

log = logging.getLogger("poimen.api")


def limits() -> dict:
    """What one request may hold (settings POIMEN_API_MAX_RECORDS, POIMEN_API_MAX_BYTES)."""
    return {"records": settings.POIMEN_API_MAX_RECORDS, "bytes": settings.POIMEN_API_MAX_BYTES}


def too_large(what: str) -> HttpError:
    limit = limits()
    return HttpError(
        413,
        f"{what}: a request holds at most {limit['records']:,} records and "
        f"{limit['bytes']:,} bytes ({limit['bytes'] / 2**20:g} MB); send smaller requests",
    )


# What each error status of the API means, for its OpenAPI schema (the docs page): every one
# is {"detail": "..."}, answered by the handlers below.
ERROR_MEANINGS = {
    400: "malformed JSON, or a field the request cannot have (named: `records: ...`)",
    401: "no token, an unknown or a revoked one, or an inactive user's",
    403: "the token's user lacks the permission the endpoint needs (named)",
    404: "nothing is stored under that id (named)",
    413: "over the limits of one request (GET /api/v1/health says them)",
    503: "the database or the artifact index cannot be used; send again later",
}
_DETAIL = {
    "type": "object",
    "properties": {"detail": {"type": "string", "description": "what is wrong, what to do"}},
    "required": ["detail"],
}


def error_responses(*statuses: int) -> dict:
    """`openapi_extra` for an endpoint that answers `statuses` as errors: documented only, the
    answer itself is the handlers' (so a paged or streamed endpoint keeps its own response)."""
    return {
        "responses": {
            status: {
                "description": ERROR_MEANINGS[status],
                "content": {"application/json": {"schema": _DETAIL}},
            }
            for status in statuses
        }
    }


def _problem(location: tuple, message: str) -> str:
    where = ".".join(str(part) for part in location if part not in ("body", "payload"))
    return f"{where}: {message}" if where else message


def install(api: NinjaAPI) -> None:
    @api.exception_handler(AuthenticationError)
    def unauthorised(request, error):
        detail = NO_TOKEN if error.message == "Unauthorized" else error.message
        response = api.create_response(request, {"detail": detail}, status=401)
        response["WWW-Authenticate"] = 'Bearer realm="poimen"'
        return response

    @api.exception_handler(HttpError)
    def http_error(request, error):
        detail = str(error)
        if isinstance(error.__cause__, json.JSONDecodeError):
            cause = error.__cause__
            detail = f"malformed JSON: {cause.msg} at line {cause.lineno}, column {cause.colno}"
        elif error.__cause__ is not None and error.status_code == 400:
            detail = f"the body is not JSON: {error.__cause__}"
        return api.create_response(request, {"detail": detail}, status=error.status_code)

    @api.exception_handler(Http404)
    def not_found(request, error):
        # What was not found, as the endpoint says it (django-ninja's own says "Not Found").
        detail = str(error) or "Not Found"
        return api.create_response(request, {"detail": detail}, status=404)

    @api.exception_handler(ValidationError)
    def invalid(request, error):
        problems = [_problem(tuple(e.get("loc", ())), e.get("msg", "")) for e in error.errors]
        return api.create_response(request, {"detail": "; ".join(problems)}, status=400)

    @api.exception_handler(ArtifactUnusable)
    def index_unusable(request, error):
        detail = f"the artifact index cannot be built, nothing is checked: {error}"
        return api.create_response(request, {"detail": detail}, status=503)

    @api.exception_handler(ManifestUnwritable)
    def manifest_unwritable(request, error):
        log.error("%s %s: %s", request.method, request.path, error)
        detail = f"{error}: nothing was registered; send again later"
        return api.create_response(request, {"detail": detail}, status=503)

    @api.exception_handler(DatabaseError)
    def database_down(request, error):
        log.exception("database error in %s %s", request.method, request.path)
        detail = "the database cannot be reached or refused the request; try again later"
        return api.create_response(request, {"detail": detail}, status=503)

    @api.exception_handler(Exception)
    def unexpected(request, error):
        log.exception("unexpected error in %s %s", request.method, request.path)
        detail = "internal error (in the server's log); send again: nothing is stored twice"
        return api.create_response(request, {"detail": detail}, status=500)
