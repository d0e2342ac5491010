"""The desk's caches: aggregates over whole tables kept under a key that changes whenever the
data does, and arrays kept in the process. `caches_clear()` empties all of them.

A key is made of a version read cheaply from the database (a few index lookups), so a page
never shows stale numbers and nothing has to remember to invalidate.
"""

import hashlib

from django.core.cache import cache
from django.db.models import Max

from poimen.decision.policies import Policies, report_floor
from poimen.models import Event, Match, Record
from poimen.web.request_memo import forget, once_a_request

# In-process caches (numpy arrays too big to pickle into the cache on every request), by name.
_in_process: dict[str, dict] = {}


def cache_key(*parts) -> str:
    """A cache key safe for any backend (no spaces or odd characters, bounded length)."""
    return "poimen:" + hashlib.sha1(repr(parts).encode()).hexdigest()


def _policy_rows() -> list:
    # The policies this request reads anyway (Policies.load, once a GET request).
    policies = Policies.load()
    return [
        (kind, policies.thresholds[kind], policies.min_shared[kind], policies.on_derived[kind])
        for kind in policies.kinds
    ]


def data_version() -> str:
    """Changes whenever anything the aggregates count changes: every write appends an event or
    a record, and policies are part of the key. Three index lookups, once a GET request."""
    return once_a_request("data_version", _data_version)


def _data_version() -> str:
    newest_event = Event.objects.aggregate(n=Max("id"))["n"]
    newest_record = Record.objects.aggregate(n=Max("id"))["n"]
    raw = f"{newest_event}:{newest_record}:{_policy_rows()}:{report_floor()}"
    return hashlib.sha1(raw.encode()).hexdigest()[:16]


def decision_version() -> str:
    """Changes when the filter's decisions can change (ingest, refilter, a threshold or policy
    change), not when a reviewer judges: new record or match ids, a threshold_changed event,
    the policies (a policy change redacts or excludes records again). Once a GET request."""
    return once_a_request("decision_version", _decision_version)


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
    forget()
