"""Response headers the review desk relies on for its safety."""

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import redirect, resolve_url
from django.urls import Resolver404, resolve, reverse
from django.utils.cache import patch_vary_headers

# No inline script, no eval, no inline style: everything the pages run or wear is a file we
# serve. Record text is escaped everywhere, and this is the second wall behind that.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class ContentSecurityPolicyMiddleware:
    """Set the Content-Security-Policy header on every response that does not set its own.

    It also marks responses as varying on HX-Request: the same URL answers a full page or an
    htmx fragment, and a browser cache must never hand one back for the other (the back button).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response = self._login_redirect_for_htmx(request, response)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        patch_vary_headers(response, ("HX-Request",))
        if response.get("Content-Type", "").startswith("text/html"):
            # A page shows verdicts that change under it; the back button must not bring
            # back a stale copy from the browser's cache.
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    @staticmethod
    def _login_redirect_for_htmx(request, response):
        """An htmx request whose session ran out would swap the login page into a fragment;
        tell htmx to load the login page as a whole page instead."""
        # META, not request.headers: that builds every header's name, on every API answer.
        if request.META.get("HTTP_HX_REQUEST") != "true" or response.status_code != 302:
            return response
        location = response.get("Location", "")
        if not location.startswith(resolve_url(settings.LOGIN_URL)):
            return response
        redirect = HttpResponse(status=204)
        redirect["HX-Redirect"] = location
        return redirect


# The session's note that its user still has the one-time password `add_user` printed (set at
# login by views.accounts, so that no page pays a query to know it).
ONE_TIME = "one_time_password"
# What a user with a one-time password may still reach.
ONE_TIME_ALLOWED = ("password_change", "password_changed", "logout", "login")


class OneTimePasswordMiddleware:
    """Sends a user who still has their one-time password to the password page, from any
    other page of the desk, until they replace it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        session = getattr(request, "session", None)
        if session is not None and session.get(ONE_TIME) and request.user.is_authenticated:
            try:
                name = resolve(request.path_info).url_name
            except Resolver404:
                name = None
            if name not in ONE_TIME_ALLOWED:
                return redirect(reverse("password_change"))
        return self.get_response(request)
