"""A request id for every request, in its response (X-Request-ID) and in every log line written
while it is answered, so that a 500 a user reports is found in the server's log.

The id is the proxy's X-Request-ID when it sends a sane one (nginx: `proxy_set_header
X-Request-ID $request_id`), else a new one."""

import logging
import re
import uuid
from contextvars import ContextVar

HEADER = "X-Request-ID"
_SANE = re.compile(r"[A-Za-z0-9._-]{1,64}")
current_request_id: ContextVar[str] = ContextVar("poimen_request_id", default="-")


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        given = request.headers.get(HEADER, "")
        request.id = given if _SANE.fullmatch(given) else uuid.uuid4().hex[:16]
        token = current_request_id.set(request.id)
        try:
            response = self.get_response(request)
        finally:
            current_request_id.reset(token)
        response[HEADER] = request.id
        return response


class RequestIdFilter(logging.Filter):
    """Gives each record `request_id` (the request being answered, or "-")."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current_request_id.get()
        return True
