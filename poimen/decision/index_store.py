"""The artifact index's shingles in a store shared by the processes of one machine.

With POIMEN_INDEX_DIR set, a long-lived process (index_version.LiveIndex) keeps of each
artifact only what a match names and measures (kind, name, sha256, length) and looks its
shingles up in the store's segments (filter/segment_store.py), memory-mapped: two server
processes and two queue workers share one copy in the page cache. The first process that
meets artifacts the store lacks appends them as a segment (numbered as every process numbers
them: by primary key); the others map that segment and read no shingle. A merge then runs in
a background thread of the process that appended.

A store belongs to one database: its manifest remembers the last artifact it holds (primary
key and sha256), and a store that does not agree with the database is emptied and filled
again rather than trusted.
"""

import threading
from pathlib import Path

import numpy as np
from django.conf import settings

from filter import DEFAULT_PARAMS, ArtifactRecord
from filter.index import ShingleIndex
from filter.segment_store import SegmentStore, StoreMismatch, StoreView
from poimen.decision.artifact_records import artifact_params
from poimen.models import Artifact

# Artifacts a segment of a first fill holds: the store is filled in steps of this many, so
# that a fill of a million artifacts never holds all their shingles in memory at once.
FILL_STEP = 20_000
# The row fields a process keeps of each artifact (its shingles stay in the store).
LIGHT_FIELDS = (
    "pk",
    "kind",
    "name",
    "sha256",
    "n_tokens",
    "emitted_at",
    "shingle_normaliser",
    "shingle_k",
    "shingle_hash",
)

_EMPTY = np.empty(0, dtype=np.uint64)
_views: dict[Path, StoreView] = {}
_merging = threading.Lock()


def index_store() -> SegmentStore | None:
    """This database's store, when POIMEN_INDEX_DIR says where stores live."""
    if not settings.POIMEN_INDEX_DIR:
        return None
    name = Path(str(settings.DATABASES["default"]["NAME"])).name
    return SegmentStore(Path(settings.POIMEN_INDEX_DIR) / name)


def light_record(artifact: Artifact) -> ArtifactRecord:
    """What a filter keeps of an artifact whose shingles a store holds."""
    return ArtifactRecord(
        kind=artifact.kind,
        name=artifact.name,
        sha256=artifact.sha256,
        shingles=_EMPTY,
        emitted_at=artifact.emitted_at,
        params=artifact_params(artifact),
        n_tokens=artifact.n_tokens,
    )


def all_current() -> bool:
    """Whether every artifact's shingles are of this version (else a full load in the process
    makes them again from the text first: artifact_index._store_reshingled)."""
    return not Artifact.objects.exclude(
        shingle_normaliser=DEFAULT_PARAMS.normaliser,
        shingle_k=DEFAULT_PARAMS.k,
        shingle_hash=DEFAULT_PARAMS.hash,
    ).exists()


def store_index(store: SegmentStore, count: int, pk_of, sha_of) -> ShingleIndex:
    """The store's index over artifacts numbered 0 to count - 1 (pk_of(n), sha_of(n): the
    n-th one's primary key and sha256, in primary-key order), after appending what it lacks
    of them."""
    manifest = store.read()
    end = manifest.end
    if end and end <= count and manifest.meta.get("last") != [pk_of(end - 1), sha_of(end - 1)]:
        manifest = store.clear()  # not this database's artifacts, or not in this order
    # (a store ahead of this process holds artifacts it does not know of yet: another process
    # met them first; they are left out of its lookups, below)
    while manifest.end < count:
        upto = min(count, manifest.end + FILL_STEP)
        numbered = {pk_of(n): n for n in range(manifest.end, upto)}
        rows = Artifact.objects.filter(pk__in=list(numbered)).only("pk", "shingles")
        added = sorted((numbered[row.pk], row.shingle_array) for row in rows.iterator(2000))
        try:
            manifest = store.append(added, meta={"last": [pk_of(upto - 1), sha_of(upto - 1)]})
        except StoreMismatch:  # another process appended first: take what it did
            manifest = store.read()
    _compact_in_background(store)
    view = _views.setdefault(store.path, StoreView(store))
    manifest, segments = view.current()
    return ShingleIndex().using(segments, removed=manifest.removed, limit=count)


def _compact_in_background(store: SegmentStore) -> None:
    if not _merging.acquire(blocking=False):
        return

    def compact():
        try:
            while store.compact():
                pass
        finally:
            _merging.release()

    threading.Thread(target=compact, name="poimen-index-merge", daemon=True).start()
