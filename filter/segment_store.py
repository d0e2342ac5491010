"""Index segments kept as files, shared by the processes of one machine.

A store is a directory: segment files, written once each (filter/segments.py), and a manifest
naming the ones in force in artifact order, with how many artifacts they cover (`end`), the
artifacts removed (tombstones) and what the application says the segments were made from
(`meta`). A registration appends a segment of its own artifacts; a merge replaces adjacent
segments with one. Both write the new manifest whole and move it into place, so a reader sees
the old one or the new one, never half of either.

A process holds a StoreView: each time it asks, one stat() of the manifest says whether
anything changed (the cheap signal); when it did, the view reads the manifest and maps only
the segments it does not hold yet. The page cache holds each file once for every process.
A file is deleted once no manifest names it; a process that still maps it keeps reading it
(an unlinked file lives while mapped).

Writers (appends, tombstones, the end of a merge) hold an exclusive lock on the store's lock
file for the few milliseconds a manifest takes; a merge reads and sorts without it, under a
lock of its own that only one merger holds at a time.
"""

import fcntl
import json
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from filter.index import MERGE_FACTOR
from filter.segments import Segment

MANIFEST = "manifest.json"
# Seconds a segment file outlives the last manifest that named it.
DELETE_GRACE = 10.0


@dataclass(frozen=True)
class Manifest:
    generation: int = 0
    end: int = 0  # artifacts numbered below end are in the segments
    segments: tuple[str, ...] = ()
    removed: tuple[int, ...] = ()
    meta: dict = field(default_factory=dict)


class StoreMismatch(Exception):
    """An append that does not follow the store's last artifact."""


class SegmentStore:
    def __init__(self, path):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)

    def signal(self):
        """What changes whenever the manifest is replaced: one stat(), no read."""
        try:
            found = os.stat(self.path / MANIFEST)
        except FileNotFoundError:
            return None
        return (found.st_ino, found.st_mtime_ns, found.st_size)

    def read(self) -> Manifest:
        try:
            data = json.loads((self.path / MANIFEST).read_text("utf-8"))
        except FileNotFoundError:
            return Manifest()
        data["segments"], data["removed"] = tuple(data["segments"]), tuple(data["removed"])
        return Manifest(**data)

    @contextmanager
    def _locked(self, name: str = "lock", *, wait: bool = True):
        with open(self.path / name, "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    @contextmanager
    def writing(self):
        """The manifest to change, under the writers' lock: `yield`s (manifest, commit), and
        commit(new manifest) puts a new one in place."""
        with self._locked():
            yield self.read(), self._write

    def _write(self, manifest: Manifest) -> Manifest:
        manifest = Manifest(
            generation=manifest.generation + 1,
            end=manifest.end,
            segments=tuple(manifest.segments),
            removed=tuple(sorted(manifest.removed)),
            meta=dict(manifest.meta),
        )
        partial = self.path / f"{MANIFEST}.{os.getpid()}.{threading.get_ident()}.partial"
        partial.write_text(json.dumps(manifest.__dict__), "utf-8")
        os.replace(partial, self.path / MANIFEST)
        return manifest

    def _save(self, segment: Segment, generation) -> str:
        name = f"segment-{segment.first:010d}-{segment.end:010d}-g{generation}.seg"
        segment.save(self.path / name)
        return name

    def append(self, added: list, *, meta: dict | None = None) -> Manifest:
        """A segment of `added` ((number, shingles), numbers ascending from the store's end)
        appended; `meta` replaces the manifest's. An artifact without shingles only moves
        the end."""
        with self.writing() as (manifest, commit):
            first = added[0][0] if added else manifest.end
            if first != manifest.end:
                raise StoreMismatch(
                    f"append from artifact {first}, the store ends at {manifest.end}"
                )
            names = manifest.segments
            with_shingles = [(n, s) for n, s in added if len(s)]
            if with_shingles:
                segment = Segment.build(with_shingles)
                names += (self._save(segment, manifest.generation + 1),)
            end = added[-1][0] + 1 if added else manifest.end
            return commit(
                Manifest(manifest.generation, end, names, manifest.removed, meta or manifest.meta)
            )

    def remove(self, number: int) -> Manifest:
        with self.writing() as (manifest, commit):
            removed = (*manifest.removed, number)
            return commit(
                Manifest(
                    manifest.generation, manifest.end, manifest.segments, removed, manifest.meta
                )
            )

    def clear(self) -> Manifest:
        """No segment and no artifact: for a store whose numbering no longer holds."""
        with self._locked("merging"):  # no merger between its save and its commit
            with self.writing() as (manifest, commit):
                cleared = commit(Manifest(manifest.generation))
            self._delete_unnamed(cleared, grace=0.0)
        return cleared

    def compact(self) -> bool:
        """One merge the tiers call for (the smallest first), if any; False when there was
        none or another merger is at work. Run it in the background: it sorts without the
        writers' lock, which it takes only to put the merged segment in place."""
        with self._locked("merging", wait=False) as mine:
            if not mine:
                return False
            manifest = self.read()
            run = _tier_run(self, manifest)
            if run is None:
                return False
            lo, hi = run
            parts = [Segment.open(self.path / name) for name in manifest.segments[lo:hi]]
            merged = Segment.merged(parts, set(manifest.removed))
            # saved before the writers' lock (a registration waits for no merge to be written):
            # only a merger deletes files, and this is the only merger
            name = self._save(merged, f"m{manifest.generation}")
            with self.writing() as (now, commit):
                # appends only add at the end and only this merger merges: lo:hi are still
                # the same segments
                segments = now.segments[:lo] + (name,) + now.segments[hi:]
                done = commit(Manifest(now.generation, now.end, segments, now.removed, now.meta))
            self._delete_unnamed(done)
            return True

    def _delete_unnamed(self, _: Manifest, *, grace: float | None = None) -> None:
        """Delete the files no manifest names now and none has for `grace` seconds (a reader
        that read an older manifest a moment ago may still be opening them). Under the
        writers' lock, since every file is written under it or by the one merger."""
        grace = DELETE_GRACE if grace is None else grace
        with self.writing() as (manifest, _commit):
            named, now = set(manifest.segments), time.time()
            for path in self.path.glob("segment-*.seg"):
                if path.name in named:
                    continue
                try:
                    if now - path.stat().st_mtime > grace:
                        path.unlink()
                except FileNotFoundError:
                    pass


def _segment_sizes(store: SegmentStore, names) -> list[int]:
    sizes = []
    for name in names:
        # the header's first line holds the entry count; no need to map the arrays
        with open(store.path / name, "rb") as file:
            head = file.read(4096)
        sizes.append(json.loads(head.split(b"\n", 2)[1])["n"])
    return sizes


def _tier_run(store: SegmentStore, manifest: Manifest):
    """The segments [lo, hi) to merge: from the oldest segment that a later one is more than
    1/MERGE_FACTOR of, to the end, or None. From the oldest: while registrations keep adding
    segments, a merge from the end only would leave the older small ones behind."""
    sizes = _segment_sizes(store, manifest.segments)
    for at in range(1, len(sizes)):
        if sizes[at] * MERGE_FACTOR > sizes[at - 1]:
            return at - 1, len(sizes)
    return None


class StoreView:
    """A process's view of a store: the segments in force, mapped, refreshed on a change."""

    def __init__(self, store: SegmentStore):
        self.store = store
        self._signal = object()
        self._manifest = Manifest()
        self._opened: dict[str, Segment] = {}
        self.opened = 0  # segment files mapped, in all

    def current(self, _tries: int = 10) -> tuple[Manifest, tuple[Segment, ...]]:
        signal = self.store.signal()
        if signal != self._signal:
            manifest = self.store.read()
            opened = {}
            for name in manifest.segments:
                if name in self._opened:
                    opened[name] = self._opened[name]
                    continue
                try:
                    opened[name] = Segment.open(self.store.path / name)
                except FileNotFoundError:  # merged away since the read: read again
                    if not _tries:
                        raise
                    return self.current(_tries - 1)
                self.opened += 1
            self._opened, self._manifest, self._signal = opened, manifest, signal
        return self._manifest, tuple(self._opened[name] for name in self._manifest.segments)
