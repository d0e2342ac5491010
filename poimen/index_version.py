"""Which artifacts and policies the filter is built from, and an index kept in a process that
follows them.

A long-lived process (a server process of the API, a queue worker) holds an ArtifactIndex in
memory. Before each request or batch it asks `index_version()`, two small queries, and builds
the index again only when the version moved: an artifact registered, or a policy changed,
through any process is in force for the next request of every process.

The version is made of what the index is made of (the highest artifact id, and every policy
row) rather than a counter that each write would have to remember to bump: a write that
changes one of them changes the version, whatever code made it.
"""

import hashlib
import threading
from collections.abc import Callable

from django.db.models import Max

from poimen.artifact_index import ArtifactIndex, artifact_index_load
from poimen.models import Artifact, KindPolicy

_POLICY_FIELDS = [field.attname for field in KindPolicy._meta.concrete_fields]


def index_version() -> str:
    """'a<highest artifact id>-p<digest of the policy rows>': equal versions, equal indexes.

    Artifacts are only ever added (rows that records and events point at are never deleted),
    and a new one always has the highest id: the highest id says which artifacts there are,
    read from the primary key's index without touching the rows."""
    last = Artifact.objects.aggregate(last=Max("id"))["last"] or 0
    policies = list(KindPolicy.objects.order_by("pk").values_list(*_POLICY_FIELDS))
    digest = hashlib.sha256(repr(policies).encode("utf-8")).hexdigest()[:12]
    return f"a{last}-p{digest}"


class LiveIndex:
    """An ArtifactIndex kept in this process, built again when index_version() moves."""

    def __init__(self, load: Callable[[], ArtifactIndex] = artifact_index_load):
        self._load = load
        self._lock = threading.Lock()
        self.index: ArtifactIndex | None = None
        self.version: str | None = None
        self.loads = 0

    def current(self) -> tuple[ArtifactIndex, str]:
        """The index in force and its version."""
        version = index_version()
        if version != self.version:
            with self._lock:
                if version != self.version:
                    # The version is read before the load: a change during the load is in
                    # the index or moves the version again, so the next call loads once more;
                    # an index is never labelled newer than it is.
                    self.index = self._load()
                    self.version = version
                    self.loads += 1
        return self.index, self.version


# The API's index in this process (each server process has its own).
live_index = LiveIndex()
