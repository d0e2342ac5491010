"""The API's own way through Django: a WSGI handler with the middleware an API request needs,
beside the desk's handler with all of it.

A check is answered on every write of a memory system, so it should cost little more than
the request that carries it. The desk's middleware (sessions, CSRF, the login wall, messages,
htmx, the login lockout, static files) does nothing for a request with a bearer token but
costs as much as the check; the API's requests skip it. What they keep sets response headers
(HTTPS redirect and HSTS, nosniff, framing, CSP, Content-Length), so the API's answers carry
the headers they did. Django's test client always takes the desk's way; `application`
(poimen.wsgi, which gunicorn serves) chooses by path.
"""

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.handlers.exception import convert_exception_to_response
from django.core.handlers.wsgi import WSGIHandler, get_path_info
from django.db import connections
from django.utils.module_loading import import_string

from poimen.api.check import check_at_once

API_PREFIX = "/api/"
API_URLCONF = "poimen.api.root_urls"


class ApiHandler(WSGIHandler):
    """Django's WSGI handler with settings.API_MIDDLEWARE and the API's URLs alone."""

    def load_middleware(self, is_async=False):
        if is_async:
            raise ImproperlyConfigured("poimen's API handler is WSGI only: poimen serve runs it")
        self._view_middleware, self._template_response_middleware = [], []
        self._exception_middleware = []
        handler = convert_exception_to_response(self._get_response)
        for path in reversed(settings.API_MIDDLEWARE):
            middleware = import_string(path)(handler)
            for hook, hooks in (
                ("process_view", self._view_middleware),
                ("process_exception", self._exception_middleware),
                ("process_template_response", self._template_response_middleware),
            ):
                if hasattr(middleware, hook):
                    hooks.append(getattr(middleware, hook))
            handler = convert_exception_to_response(middleware)
        self._middleware_chain = handler

    def _get_response(self, request):
        # A check's usual case is answered by the view's own steps without URL resolution
        # and django-ninja's request cycle (half of a single record's time in process);
        # anything else, or anything unusual about it, takes the whole way.
        return check_at_once(request) or super()._get_response(request)

    def get_response(self, request):
        # The API's URLs alone: the desk's dozens of patterns are not tried first.
        request.urlconf = API_URLCONF
        kept = _health_checked_on_failure()
        response = super().get_response(request)
        if kept and response.status_code == 503 and _a_connection_died():
            # A connection kept from an earlier request had died (the database restarted):
            # the request is answered again on a new one. Nothing of it was written, as its
            # transaction died with the connection; a check and a register are idempotent.
            for connection in connections.all(initialized_only=True):
                connection.close()
            response = super().get_response(request)
        return response


def _health_checked_on_failure() -> bool:
    """Skip the health check (SELECT 1) Django makes on a kept connection before a request's
    first query: it was a round trip as long as the index state's read. A connection that
    died is found by the request failing instead (ApiHandler.get_response). Whether a kept
    connection was trusted so."""
    kept = False
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None and not connection.health_check_done:
            connection.health_check_done = kept = True
    return kept


def _a_connection_died() -> bool:
    return any(
        connection.errors_occurred and not connection.is_usable()
        for connection in connections.all(initialized_only=True)
        if connection.connection is not None
    )


class ByPath:
    """A WSGI application sending /api/… to the API's handler and the rest to the desk's."""

    def __init__(self, api, desk):
        self.api, self.desk = api, desk

    def __call__(self, environ, start_response):
        handler = self.api if get_path_info(environ).startswith(API_PREFIX) else self.desk
        return handler(environ, start_response)
