"""POST /api/v1/check: per record, evidence / redacted / excluded, what matched and where."""

import json
from typing import Annotated, Any, Literal

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from ninja import Field, Router, Schema
from pydantic import StrictBool, WithJsonSchema

from poimen.api.auth import require_permission, token_allows
from poimen.api.errors import error_responses, too_large
from poimen.api.instance import api
from poimen.models import Record
from poimen.services.checks import CheckedItem, CheckResult, records_check
from poimen.services.tokens import TokenRefused, api_token_authenticate

CHECK_PATH = "/api/v1/check"
CHECK_PERMISSION = "poimen.check_records"

router = Router(tags=["check"])

# Whatever statuses a record can have, as the model says (evidence, excluded, redacted...).
Status = Literal[tuple(Record.Status.values)]


class RecordIn(Schema):
    """A record as a memory system is about to store it (a line of records JSONL)."""

    id: str | int = Field(description="its id in the memory system; unique with its source")
    text: str
    role: str | None = None
    session: str | None = None
    source: str | None = Field(None, description='a label for where it comes from; "api"')
    metadata: dict[str, Any] | None = None
    identity: str | None = Field(
        None,
        description=(
            "the record's own identity where its original has one, as poimen's readers give "
            'it (a Claude Code block: "claude-code:<session>/<uuid>/<block>"): stored once by '
            "it under any source, so a record sent here and later ingested from its "
            "transcript (or the other way round) is one record"
        ),
    )


# Items are read one by one (an item's error is its own answer), so the body takes any JSON
# value where a record stands and the schema shows what a record is.
LooseRecord = Annotated[Any, WithJsonSchema(RecordIn.model_json_schema())]


class CheckIn(Schema):
    records: list[LooseRecord]
    store: StrictBool = Field(True, description="store the records as ingest would")


class MatchOut(Schema):
    kind: str
    name: str
    sha256: str
    overlap: float
    threshold: float
    spans: list[tuple[int, int]] = Field(
        description="[start, end) character offsets of the matched passages in the text"
    )


class AcrossKindsOut(Schema):
    coverage: float = Field(description="share of the record in passages of all its matches")
    threshold: float = Field(description="in force across kinds: the highest of the kinds'")
    kinds: list[str]
    exceeds: bool


class ResultOut(Schema):
    id: str | int | None
    source: str | None = None
    status: Status | None = None
    derived: bool | None = None
    evidence_text: str | None = Field(
        None, description="a redacted record's text with the copied passages cut"
    )
    matches: list[MatchOut] = []
    across_kinds: AcrossKindsOut | None = Field(
        None, description="when the matches are of two kinds or more: their coverage together"
    )
    stored: Literal["new", "already"] | None = Field(
        None, description="new: stored now; already: stored before (this answer is a fresh check)"
    )
    shadow: bool = Field(
        False,
        description=(
            "decided in shadow mode (the token's, or the record's source's): the status says "
            "what would have happened, and the memory system keeps the record"
        ),
    )
    error: str | None = None


class CheckOut(Schema):
    results: list[ResultOut]
    index_version: str
    run: int | None = Field(None, description="the ingest run the stored records joined")
    shadow_run: int | None = Field(
        None,
        description=(
            "when some records were decided in shadow mode (their source's) and others not: "
            "the run those in shadow mode joined (`run` is the others')"
        ),
    )
    shadow: bool = Field(
        False,
        description=(
            "the token is in shadow mode: each status says what would have happened, the "
            "decisions are recorded, and the memory system keeps every record"
        ),
    )


# What an answer holds where an item says nothing (an item with an error): the schema's own
# defaults, so that an answer built here has every field ResultOut gives, in its order.
_UNANSWERED = {
    name: None if field.is_required() else field.get_default(call_default_factory=True)
    for name, field in ResultOut.model_fields.items()
}


def _matches(item: CheckedItem) -> list[dict]:
    return [
        {
            "kind": match.artifact[0],
            "name": match.artifact[1],
            "sha256": match.artifact[2],
            "overlap": round(match.overlap, 6),
            "threshold": match.threshold,
            "spans": match.spans,
        }
        for match in (item.checked.matches if item.checked else ())
    ]


def _across_kinds(item: CheckedItem) -> dict | None:
    mixed = item.checked.mixed if item.checked else None
    if mixed is None:
        return None
    return {
        "coverage": round(mixed.coverage, 6),
        "threshold": mixed.threshold,
        "kinds": list(mixed.kinds),
        "exceeds": mixed.exceeds,
    }


def _answer(result: CheckResult) -> dict:
    """The answer as CheckOut dumps it (tests/api/test_check.py holds them to each other)."""
    results = []
    for item in result.items:
        if item.error is not None:
            results.append({**_UNANSWERED, "id": item.id, "error": item.error})
            continue
        decided = item.decided
        results.append(
            {
                "id": item.id,
                "source": decided.source,
                "status": decided.status,
                "derived": decided.derived,
                "evidence_text": decided.evidence_text or None,
                "matches": _matches(item),
                "across_kinds": _across_kinds(item),
                "stored": item.stored,
                "shadow": item.shadow,
                "error": None,
            }
        )
    return {
        "results": results,
        "index_version": result.index_version,
        "run": result.run.pk if result.run else None,
        "shadow_run": result.shadow_run.pk if result.shadow_run else None,
        "shadow": result.shadow,
    }


@router.post(
    "/check",
    response=CheckOut,
    summary="Check records, and store them as ingest would",
    openapi_extra=error_responses(400, 401, 403, 413, 503),
)
def check(request, payload: CheckIn):
    """Each record is answered in request order: evidence, redacted or excluded, with the
    artifacts it matches (from the reporting floor up) and where. A record that cannot be read
    has an `error` of its own; the others are answered. With `store` (the default) new
    records are stored exactly as `ingest` stores them, once by (source, id)."""
    token = require_permission(request, CHECK_PERMISSION)
    if len(payload.records) > settings.POIMEN_API_MAX_RECORDS:
        raise too_large(f"this request holds {len(payload.records):,} records")
    result = records_check(
        items=payload.records,
        store=payload.store,
        token=token,
        suspect=_suspect(request.body),
    )
    return _rendered(request, _answer(result))


def _suspect(body: bytes) -> bool:
    """Whether the raw body can hold what `unstorable` refuses in a record's strings: NUL
    (only as the escape \\u0000: json.loads refuses a raw one) or a lone surrogate (an
    escape \\uD..., or UTF-8 bytes starting 0xED that json.loads decodes with
    surrogatepass). Non-finite numbers can only be in metadata, which records_line has
    checked in full anyway. Byte searches, not SUSPECT_ESCAPE: that regex took 6 ms over a
    batch's 250 KB, six times its JSON parse. A body without them has its items'
    characters checked once, as it is parsed."""
    return any(part in body for part in _SUSPECT_PARTS)


_SUSPECT_PARTS = (b"\\u0000", b"\\ud", b"\\uD", b"\xed")


def _rendered(request: HttpRequest, answer: dict) -> HttpResponse:
    # Built to the schema here, so not validated against it again: that took as long as the
    # check of a batch (`response=CheckOut` stays for the OpenAPI schema). Rendered by the
    # API's own renderer.
    return api.create_response(request, answer, status=200)


def check_at_once(request: HttpRequest) -> HttpResponse | None:
    """The answer `check` gives, for a request with nothing unusual about it (a JSON body
    within the limits, of `records` and `store` alone, a live bearer token allowed to
    check), without URL resolution and django-ninja's request cycle: they were half of a
    single record's time in a server process. None for any other request, which the
    whole way answers (every error is its, and said once)."""
    meta = request.META
    if request.method != "POST" or request.path_info != CHECK_PATH:
        return None
    scheme, _, raw = meta.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() != "bearer" or not meta.get("CONTENT_TYPE", "").startswith(
        "application/json"
    ):
        return None
    try:
        declared = int(meta.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return None
    # request.body refuses more than Django's limit (None: no limit), the API more than its own.
    limits = (settings.POIMEN_API_MAX_BYTES, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    if not 0 < declared <= min(limit for limit in limits if limit is not None):
        return None
    try:
        payload = json.loads(request.body)  # kept on the request for the whole way
    except ValueError:
        return None
    if not isinstance(payload, dict) or not payload.keys() <= {"records", "store"}:
        return None
    records, store = payload.get("records"), payload.get("store", True)
    if not isinstance(records, list) or not isinstance(store, bool):
        return None
    if len(records) > settings.POIMEN_API_MAX_RECORDS:
        return None
    try:
        token = api_token_authenticate(raw)
    except TokenRefused:
        return None
    if not token_allows(token, CHECK_PERMISSION):
        return None
    request.user, request.auth = token.user, token
    try:
        result = records_check(
            items=records, store=store, token=token, suspect=_suspect(request.body)
        )
    except DatabaseError:
        # Answered again the whole way, which says what failed (a check and a store are
        # idempotent: a record stored before the failure is "already" stored then).
        return None
    return _rendered(request, _answer(result))
