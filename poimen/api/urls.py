"""The URLs the API adds under /api/v1/: its routers on the one NinjaAPI (poimen.api.instance),
the API's own body limit, and a JSON 404 for an address it does not have."""

from functools import wraps

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import JsonResponse
from django.urls import re_path

from poimen.api import artifacts, check, errors, health, records
from poimen.api.instance import api

for module in (check, artifacts, records, health):
    api.add_router("", module.router)


def _body_within_the_api_limit(view):
    """The API's body limit (POIMEN_API_MAX_BYTES, 10 MB) for the API's requests alone: the
    desk's keep Django's DATA_UPLOAD_MAX_MEMORY_SIZE. The body is read here, one byte past
    the limit at most, and a bigger one is answered 413 with the limits before anything
    else reads it."""

    @wraps(view)
    def within(request, *args, **kwargs):
        limit = settings.POIMEN_API_MAX_BYTES
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0
        if declared > limit:
            return _too_large(request, f"the body is {declared:,} bytes")
        # Read once: a request answered again (poimen.api.handler) holds its body already.
        reading = declared or request.method in ("POST", "PUT", "PATCH")
        if reading and not hasattr(request, "_body"):
            # A chunked body has no Content-Length, for which Django reads nothing: it is
            # read from the server's stream (gunicorn decodes the chunks), within the limit.
            chunked = "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()
            stream = request.META["wsgi.input"] if chunked and not declared else request
            body = stream.read(limit + 1)
            if len(body) > limit:
                return _too_large(request, f"the body is over {limit:,} bytes")
            # What request.body answers from here: Django's own place for the body once read
            # (it would otherwise check it against the desk's limit).
            request._body = body
        response = view(request, *args, **kwargs)
        if response.status_code == 405 and not response.get("Content-Type", "").startswith(
            "application/json"
        ):  # django-ninja's own answer is plain text: every error of the API is JSON
            # sorted: django-ninja lists them in no fixed order
            allowed = ", ".join(sorted(m.strip() for m in response.get("Allow", "").split(",")))
            detail = f"{request.method} is not allowed on {request.path}; use {allowed}"
            json_response = JsonResponse({"detail": detail}, status=405)
            json_response["Allow"] = allowed
            return json_response
        return response

    return within


def _too_large(request, what: str):
    return api.create_response(request, {"detail": str(errors.too_large(what))}, status=413)


urlpatterns, app_name, namespace = api.urls
for pattern in urlpatterns:
    pattern.callback = _body_within_the_api_limit(pattern.callback)
    # The desk's login wall is for people; the API asks for a bearer token instead, and its
    # schema and docs page are public.
    login_not_required(pattern.callback)


@login_not_required
def no_such_endpoint(request, rest: str):
    """Every error of the API is JSON, an address it does not have too (not the desk's page)."""
    detail = f"no endpoint {request.method} {request.path}: the endpoints are in /api/v1/docs"
    return JsonResponse({"detail": detail}, status=404)


urlpatterns = [*urlpatterns, re_path(r"^(?P<rest>.*)$", no_such_endpoint)]
api_urls = (urlpatterns, app_name, namespace)
