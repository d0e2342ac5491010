"""The login lockout (django-axes does the counting): the page a locked-out login gets, and the
event written when a user and address are locked out."""

from axes.helpers import get_failure_limit
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.shortcuts import render

from poimen.services import login_lockout_record


def client_address(request) -> str | None:
    """The address a lockout counts against (AXES_CLIENT_IP_CALLABLE). Behind the reverse proxy
    that POIMEN_HTTPS implies, every request comes from the proxy: the client is the address the
    proxy appended last to X-Forwarded-For (the one entry no client can forge)."""
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if settings.POIMEN_HTTPS and forwarded.strip():
        return forwarded.rsplit(",", 1)[-1].strip()
    return request.META.get("REMOTE_ADDR")


def login_locked_out(request, original_response=None, credentials=None):
    """The login page again, saying why the password was not even tried (AXES_LOCKOUT_CALLABLE)."""
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    context = {
        "form": AuthenticationForm(request, initial={"username": username}),
        "locked_out": True,
        "locked_username": username,
        "cooloff_minutes": int(settings.AXES_COOLOFF_TIME.total_seconds() // 60),
        "next": request.POST.get("next", ""),
    }
    return render(request, "login.html", context, status=429)


def record_lockout(sender, request, username, ip_address, **kwargs):
    """axes' user_locked_out fires on every refused attempt; the event is the one that locked."""
    failures = getattr(request, "axes_failures_since_start", None)
    if failures == get_failure_limit(request, getattr(request, "axes_credentials", None)):
        login_lockout_record(username=username or "", address=ip_address, failures=failures)
