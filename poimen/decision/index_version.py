"""Which artifacts and policies the filter is built from, and an index kept in a process that
follows them.

A long-lived process (a server process of the API, a queue worker) holds an ArtifactIndex in
memory. Before each request or batch it reads the index's state, one small query, and
refreshes the index only when the state moved: an artifact registered, or a policy changed,
through any process is in force for the next request of every process.

The state is made of what the index is made of (the highest artifact id, the number of
artifacts, and every policy row) rather than a counter that each write would have to remember
to bump: a write that changes one of them changes the state, whatever code made it.

A refresh does what the change needs: artifacts registered since are read and added to a copy
of the index (the shingles it holds are not read or sorted again); a policy change alone
reads no artifact. The copy replaces the index once it is whole, so a check already running
keeps the one it started with. With POIMEN_INDEX_DIR, the shingles are not the process's own
but a store's, shared by the machine's processes (poimen/decision/index_store.py).

The state is read again only when something may have moved it, not before every check: a
write of an artifact or a policy in this process (a model signal, and again once its
transaction commits), or in another process of the machine (which touches a file beside the
database's manifest, signal_path(): one stat() a check), or POIMEN_INDEX_RECHECK_SECONDS
gone by since the last read (a write on another machine, or one that bypassed the models).
"""

import hashlib
import itertools
import os
import threading
import time
from dataclasses import dataclass, fields, replace
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.db.models.signals import post_delete, post_save

from poimen.decision.artifact_index import (
    ArtifactIndex,
    artifact_index_extend,
    artifact_index_load,
    artifact_index_shared,
)
from poimen.decision.index_store import all_current, index_store
from poimen.decision.policies import Policies
from poimen.models import Artifact, KindPolicy

_POLICY_FIELDS = KindPolicy._meta.concrete_fields


@dataclass(frozen=True)
class IndexState:
    """What an index is built from, as the database holds it now (or as an index holds it)."""

    last_artifact: int
    artifacts: int
    policies: Policies

    @property
    def version(self) -> str:
        """'a<highest artifact id>-n<artifacts>-p<digest of the policies>'."""
        settings = [sorted(getattr(self.policies, f.name).items()) for f in fields(Policies)]
        digest = hashlib.sha256(repr(settings).encode("utf-8")).hexdigest()[:12]
        return f"a{self.last_artifact}-n{self.artifacts}-p{digest}"

    def under(self, policies: Policies) -> "IndexState":
        """The same artifacts under `policies`: the state of an index checked again under
        the policies in force at a write (artifact_index_under)."""
        return replace(self, policies=policies)


def index_state() -> IndexState:
    """The state now, in one query: the artifacts' highest id and count (from the primary
    key's index) beside every policy row.

    Artifacts are only ever added (rows that records and events point at are never deleted).
    With both the highest id and the count, an artifact whose transaction commits after one
    with a higher id still moves the state."""
    quote = connection.ops.quote_name
    artifact_table, policy_table = Artifact._meta.db_table, KindPolicy._meta.db_table
    columns = ", ".join(f"p.{quote(field.column)}" for field in _POLICY_FIELDS)
    with connection.cursor() as cursor:
        artifact_pk = quote(Artifact._meta.pk.column)
        cursor.execute(
            f"SELECT (SELECT MAX({artifact_pk}) FROM {quote(artifact_table)}),"
            f" (SELECT COUNT(*) FROM {quote(artifact_table)}), {columns}"
            f" FROM (SELECT 1 AS one) AS one LEFT JOIN {quote(policy_table)} p ON 1 = 1"
            f" ORDER BY p.{quote(KindPolicy._meta.pk.column)}"
        )
        rows = cursor.fetchall()
    last, count = rows[0][0] or 0, rows[0][1]
    policies = Policies.from_rows(
        {f.attname: value for f, value in zip(_POLICY_FIELDS, row[2:], strict=True)}
        for row in rows
        if row[2] is not None
    )
    return IndexState(last_artifact=last, artifacts=count, policies=policies)


def index_version() -> str:
    """The version of the index the stored artifacts and policies make: equal versions,
    equal indexes."""
    return index_state().version


# Bumped by every write of this process that may move the state.
_writes = itertools.count(1)
_last_write = [0]


def signal_path() -> Path:
    """The file a commit touches for the machine's other processes: beside the database's
    manifest, so one per database (and per machine, unless that folder is shared)."""
    return Path(settings.POIMEN_MANIFEST).parent / ".index-changed"


def _written(**_) -> None:
    _last_write[0] = next(_writes)
    # again after the commit: a state read between the write and its commit saw the old one
    transaction.on_commit(_committed)


def _committed() -> None:
    _last_write[0] = next(_writes)
    path = signal_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{os.getpid()} {time.time_ns()}\n")


def connect_signals() -> None:
    """Registered once, from the app's ready()."""
    for model in (Artifact, KindPolicy):
        post_save.connect(_written, sender=model, dispatch_uid=f"index-{model.__name__}-save")
        post_delete.connect(_written, sender=model, dispatch_uid=f"index-{model.__name__}-del")


def _signal():
    """What moves when this process or another of the machine wrote: a counter and a stat()."""
    try:
        changed = os.stat(signal_path())
    except FileNotFoundError:
        return (_last_write[0], None)
    return (_last_write[0], changed.st_mtime_ns, changed.st_ino, changed.st_size)


class LiveIndex:
    """An ArtifactIndex kept in this process (of every artifact, or of one kind's), refreshed
    when the index state moves."""

    def __init__(self, kind: str | None = None):
        self.kind = kind
        self._lock = threading.Lock()
        # (index, the state it was built from), replaced whole: a reader never pairs an
        # index with another's version.
        self._current: tuple[ArtifactIndex, IndexState] | None = None
        self.loads = 0  # full loads
        self.extensions = 0  # refreshes that read only what changed
        self.state_reads = 0
        self._seen = (None, 0.0)  # the signal and the time of the last state read

    @property
    def index(self) -> ArtifactIndex | None:
        return self._current[0] if self._current else None

    @property
    def version(self) -> str | None:
        return self._current[1].version if self._current else None

    def reset(self) -> None:
        with self._lock:
            self._current = None
            self._seen = (None, 0.0)

    def current(self) -> tuple[ArtifactIndex, str]:
        """The index in force and its version."""
        index, state = self.current_state()
        return index, state.version

    def current_state(self) -> tuple[ArtifactIndex, IndexState]:
        """The index in force and the state it was built from."""
        held, signal, now = self._current, _signal(), time.monotonic()
        seen, read_at = self._seen
        if held is not None and signal == seen and now - read_at < _recheck_seconds():
            return held
        state = index_state()
        self.state_reads += 1
        self._seen = (signal, now)
        if held is None or held[1] != state:
            with self._lock:
                held = self._current
                if held is None or held[1] != state:
                    held = self._current = self._refreshed(held, state)
        return held

    def _refreshed(self, held, state: IndexState) -> tuple[ArtifactIndex, IndexState]:
        """The index as `state` says, from `held` where it can be. It holds exactly the
        artifacts `state` counts: those with ids up to its highest."""
        policies = state.policies
        store = index_store() if self.kind is None else None
        if store is not None and all_current():
            return self._shared(held, state, store), state
        if held is not None and held[0].shared is None:
            index, old = held
            new_ids = list(
                Artifact.objects.filter(
                    pk__gt=old.last_artifact, pk__lte=state.last_artifact
                ).values_list("pk", flat=True)
            )
            # Every artifact added since has a higher id, unless one with a lower id was
            # committed late: then the count is more than the new ids make up.
            if old.artifacts + len(new_ids) == state.artifacts:
                rows = (
                    Artifact.objects.filter(pk__in=new_ids) if new_ids else Artifact.objects.none()
                )
                if self.kind is not None:
                    rows = rows.filter(kind=self.kind)
                self.extensions += 1
                return artifact_index_extend(index, artifacts=rows, policies=policies), state
        self.loads += 1
        index = artifact_index_load(kind=self.kind, policies=policies, up_to=state.last_artifact)
        return index, state

    def _shared(self, held, state: IndexState, store) -> ArtifactIndex:
        """As _refreshed, the shingles in `store`."""
        policies = state.policies
        if held is not None and held[0].shared is not None:
            index, old = held
            rows = Artifact.objects.filter(pk__gt=old.last_artifact, pk__lte=state.last_artifact)
            if old.artifacts + rows.count() == state.artifacts:
                self.extensions += 1
                return artifact_index_shared(index, artifacts=rows, policies=policies, store=store)
        self.loads += 1
        rows = Artifact.objects.filter(pk__lte=state.last_artifact)
        return artifact_index_shared(None, artifacts=rows, policies=policies, store=store)


def _recheck_seconds() -> float:
    return settings.POIMEN_INDEX_RECHECK_SECONDS


# The API's index in this process (each server process has its own).
live_index = LiveIndex()
