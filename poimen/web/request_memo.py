"""What a GET request reads once: values a page asks for again and again (the cache versions,
a threshold preview some ten times; the kind policies, a review-mode page three times) that
nothing in a GET writes. In a POST, and outside a request (commands, workers, tests calling
selectors), they are read every time.

Below everything that memoises (selectors.cache, policies): it imports nothing of poimen.
"""

from asgiref.local import Local
from django.core.signals import request_finished, request_started

_this_request = Local()


def _request_began(sender, environ=None, scope=None, **kwargs) -> None:
    method = (environ or {}).get("REQUEST_METHOD") or (scope or {}).get("method")
    _this_request.values = {} if method in ("GET", "HEAD") else None


def _request_ended(sender, **kwargs) -> None:
    _this_request.values = None


request_started.connect(_request_began, dispatch_uid="poimen-request-memo-began")
request_finished.connect(_request_ended, dispatch_uid="poimen-request-memo-ended")


def once_a_request(name: str, read):
    """read(), kept under `name` for the rest of this GET request; read each time elsewhere."""
    values = getattr(_this_request, "values", None)
    if values is None:
        return read()
    if name not in values:
        values[name] = read()
    return values[name]


def forget() -> None:
    """Drop what this request has kept (caches_clear: tests, benchmarks, a restore)."""
    _this_request.values = None
