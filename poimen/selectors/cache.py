"""The desk's caches: aggregates over whole tables kept under a key that changes whenever the
data does, and arrays kept in the process. `caches_clear()` empties all of them.

A key is made of a version read cheaply from the database (a few index lookups), so a page
never shows stale numbers and nothing has to remember to invalidate.
"""

import hashlib

from asgiref.local import Local
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db.models import Max

from poimen.models import Event, KindPolicy, Match, Record
from poimen.policies import report_floor

# In-process caches (numpy arrays too big to pickle into the cache on every request), by name.
_in_process: dict[str, dict] = {}


# The versions, read once a GET request: a page asks them for each of its cached aggregates and
# tables (a threshold preview some ten times, thirty queries), and a GET writes nothing they
# count. Outside a request (commands, workers, tests calling selectors) they are read each time.
_this_request = Local()


def _request_began(sender, environ=None, scope=None, **kwargs) -> None:
    method = (environ or {}).get("REQUEST_METHOD") or (scope or {}).get("method")
    _this_request.versions = {} if method in ("GET", "HEAD") else None


def _request_ended(sender, **kwargs) -> None:
    _this_request.versions = None


request_started.connect(_request_began, dispatch_uid="poimen-versions-began")
request_finished.connect(_request_ended, dispatch_uid="poimen-versions-ended")


def _once_a_request(name: str, read):
    versions = getattr(_this_request, "versions", None)
    if versions is None:
        return read()
    if name not in versions:
        versions[name] = read()
    return versions[name]


def cache_key(*parts) -> str:
    """A cache key safe for any backend (no spaces or odd characters, bounded length)."""
    return "poimen:" + hashlib.sha1(repr(parts).encode()).hexdigest()


def _policy_rows() -> list:
    return sorted(KindPolicy.objects.values_list("kind", "threshold", "min_shared", "on_derived"))


def data_version() -> str:
    """Changes whenever anything the aggregates count changes: every write appends an event or
    a record, and policies are part of the key. Three index lookups, once a GET request."""
    return _once_a_request("data", _data_version)


def _data_version() -> str:
    newest_event = Event.objects.aggregate(n=Max("id"))["n"]
    newest_record = Record.objects.aggregate(n=Max("id"))["n"]
    raw = f"{newest_event}:{newest_record}:{_policy_rows()}:{report_floor()}"
    return hashlib.sha1(raw.encode()).hexdigest()[:16]


def decision_version() -> str:
    """Changes when the filter's decisions can change (ingest, refilter, a threshold or policy
    change), not when a reviewer judges: new record or match ids, a threshold_changed event,
    the policies (a policy change redacts or excludes records again). Once a GET request."""
    return _once_a_request("decisions", _decision_version)


def _decision_version() -> str:
    newest = (
        Record.objects.aggregate(n=Max("id"))["n"],
        Match.objects.aggregate(n=Max("id"))["n"],
        Event.objects.filter(type=Event.Type.THRESHOLD_CHANGED).aggregate(n=Max("id"))["n"],
        _policy_rows(),
        report_floor(),
    )
    return cache_key("decisions", newest)


def cached(name: str, compute, *args, version=data_version):
    """compute(*args), kept in the shared cache while `version()` stands."""
    key = cache_key(name, version(), args)
    value = cache.get(key)
    if value is None:
        value = compute(*args)
        cache.set(key, value, timeout=3600)
    return value


def kept_in_process(name: str, key: str, compute):
    """compute(), kept in this process under `key` (one key per name: a new key replaces the
    old value, so memory holds one version of each)."""
    store = _in_process.setdefault(name, {})
    if key not in store:
        store.clear()
        store[key] = compute()
    return store[key]


def caches_clear() -> None:
    """Forget every cached aggregate and array (tests, benchmarks, a restore from backup)."""
    cache.clear()
    _in_process.clear()
    _this_request.versions = None
