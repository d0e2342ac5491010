"""The registry bench's processes (bench/registry.py): registrations at a steady rate while
server processes and queue workers check records, each keeping its filter current from the
shared store.

- the registrar shingles each new artifact and stores it as a row, at `rate` a second (what
  POST /api/v1/artifacts does: the row, then the commit's signal to the machine's processes);
- the merger merges segments in the background (filter/segment_store.py's compact);
- each reader (two for the server's processes, two for the queue's workers) checks records in
  batches and, between two, looks at the signal (one stat()); when it moved, it reads the new
  rows, appends them to the store unless another reader did first (the store's lock decides),
  maps the new segments, adds what it keeps of each new artifact to a copy of its filter (as
  index_version.LiveIndex and index_store.store_index do) and checks the last one registered,
  which it must find. It logs when each refresh was in force. Registrations that arrive
  together go into the store as one segment.

Clocks: time.monotonic(), one clock for every process of the machine.
"""

import gc
import multiprocessing
import os
import time

import numpy as np

from filter import DerivedFilter
from filter.index import ShingleIndex
from filter.segment_store import SegmentStore, StoreMismatch, StoreView
from filter.shingles import texts_shingles

CHECK_BATCH = 100  # records a reader checks between two looks at the store (an API request's)


class _Rows:
    """The registrations as the database holds them: an append-only file of (number, shingle
    count, shingles) rows, and a signal file touched after each (a commit's on_commit)."""

    def __init__(self, path):
        self.path, self.signal_path, self._offset = path / "rows.bin", path / "rows.signal", 0

    def write(self, number: int, shingles: np.ndarray) -> None:
        with open(self.path, "ab") as rows:
            rows.write(np.array([number, len(shingles)], dtype=np.uint32).tobytes())
            rows.write(shingles.astype(np.uint64).tobytes())
        self.signal_path.write_text(str(number))

    def signal(self):
        try:
            found = os.stat(self.signal_path)
        except FileNotFoundError:
            return None
        return (found.st_mtime_ns, found.st_size, found.st_ino)

    def read_new(self) -> list[tuple[int, np.ndarray]]:
        """The rows written since the last call (whole rows only)."""
        with open(self.path, "rb") as rows:
            rows.seek(self._offset)
            data = rows.read()
        new, at = [], 0
        while at + 8 <= len(data):
            number, count = np.frombuffer(data, dtype=np.uint32, count=2, offset=at)
            end = at + 8 + 8 * int(count)
            if end > len(data):
                break
            new.append(
                (int(number), np.frombuffer(data, dtype=np.uint64, count=count, offset=at + 8))
            )
            at = end
        self._offset += at
        return new


def _reader(store_path, derived_filter: DerivedFilter, light, texts, records, stop, out):
    """A server process or queue worker: checks batches; between two, one stat() of the rows'
    signal; when it moved, the new rows are read, appended to the store unless another process
    did first (poimen/decision/index_store.py's store_index), the new segments mapped, the new
    artifacts' light records added to a copy of the filter (index_version.LiveIndex)."""
    store = SegmentStore(store_path)
    view, rows = StoreView(store), _Rows(store_path.parent)
    known, seen, pending = len(derived_filter), None, {}
    refreshes, refresh_seconds, missed, checked_bytes, checking = [], [], 0, 0, 0.0
    record_bytes = [len(r.encode("utf-8")) for r in records]
    at = 0
    while time.monotonic() < stop.value:
        signal = rows.signal()
        if signal != seen:
            seen, looked = signal, time.monotonic()
            pending.update(rows.read_new())
            end = max(pending, default=known - 1) + 1
            manifest = store.read()
            while manifest.end < end:
                try:
                    manifest = store.append(
                        [(n, pending[n]) for n in range(manifest.end, end) if n in pending]
                    )
                except StoreMismatch:
                    manifest = store.read()
            manifest, segments = view.current()
            fresh = derived_filter.copy()
            for number in range(known, end):
                fresh.add(light(number), indexed=False)
            fresh.use_index(ShingleIndex().using(segments, removed=manifest.removed, limit=end))
            derived_filter, known = fresh, end
            pending = {n: s for n, s in pending.items() if n >= manifest.end}
            refreshes.append((known, time.monotonic()))
            refresh_seconds.append(refreshes[-1][1] - looked)
            missed += not derived_filter.check(texts(known - 1)).derived
        batch = records[at : at + CHECK_BATCH]
        started = time.monotonic()
        derived_filter.check_many(batch)
        checking += time.monotonic() - started
        checked_bytes += sum(record_bytes[at : at + CHECK_BATCH])
        at = (at + CHECK_BATCH) % max(1, len(records) - CHECK_BATCH)
    out.put(
        {
            "pid": os.getpid(),
            "refreshes": refreshes,
            "refresh_seconds": refresh_seconds,
            "missed": missed,
            "mb_per_second": checked_bytes / 1e6 / checking if checking else 0.0,
            "checking_share": checking,
            "memory": _memory(),
        }
    )


def _memory() -> dict:
    """This process's resident and proportional set sizes (MB): a shared mapping counts whole
    in the first, split among the processes mapping it in the second."""
    found = {}
    try:
        with open("/proc/self/smaps_rollup") as rollup:
            for line in rollup:
                name, _, value = line.partition(":")
                if name in ("Rss", "Pss", "Pss_File", "Shared_Clean"):
                    found[name] = int(value.split()[0]) / 1024
    except OSError:
        pass
    return found


def _registrar(store_path, first: int, texts, count: int, rate: float, started_at, stop, out):
    """The API's registrations: each shingled and stored as a row (what artifact_register
    writes), nothing more; the readers bring it into the store and their filters."""
    rows = _Rows(store_path.parent)
    times = []
    for i in range(count):
        target = started_at + i / rate
        delay = target - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        registered = time.monotonic()
        shingles, _, _ = texts_shingles([texts(first + i)], 5)
        rows.write(first + i, shingles)
        times.append(registered)
    done = time.monotonic()
    stop.value = done + 2.0  # the readers go on until every registration could be in force
    out.put({"registered": times, "done": done})


def _merger(store_path, stop):
    store = SegmentStore(store_path)
    while time.monotonic() < stop.value:
        if not store.compact():
            time.sleep(0.02)
    while store.compact():  # what is left, once the registrations stop
        pass


def run_live(
    store_path,
    derived_filter: DerivedFilter,
    light,
    texts,
    records: list[str],
    *,
    readers: int,
    rate: float,
    seconds: float,
) -> dict:
    """Registrations at `rate` for `seconds` with `readers` readers checking meanwhile (the
    filter and the two functions giving an artifact's light record and text are the
    readers' by fork)."""
    for name in ("rows.bin", "rows.signal"):  # the last size's registrations are in the store
        (store_path.parent / name).unlink(missing_ok=True)
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    first = len(derived_filter)
    count = int(rate * seconds)
    started_at = time.monotonic() + 2.0  # the readers start first
    stop = context.Value("d", float("inf"))  # set by the registrar once it is done
    processes = [
        context.Process(
            target=_reader,
            args=(store_path, derived_filter, light, texts, records, stop, out),
        )
        for _ in range(readers)
    ]
    processes.append(
        context.Process(
            target=_registrar,
            args=(store_path, first, texts, count, rate, started_at, stop, out),
        )
    )
    processes.append(context.Process(target=_merger, args=(store_path, stop)))
    # The bench process holds every artifact's text and record (10^6 of them at the top size):
    # a forked reader's collector walking them writes to every page of that heap, copying it
    # page by page and taking the CPU its checks need (12-03: readers' check_many at 10^6 ran
    # at half the wall-clock speed of the other sizes, and the in-force time doubled with it).
    # Frozen, the collector leaves them alone, as in a server forked after loading its code.
    gc.collect()
    gc.freeze()
    for process in processes:
        process.start()
    results = [out.get(timeout=seconds + 600) for _ in range(readers + 1)]
    for process in processes:
        process.join(timeout=600)
    gc.unfreeze()
    registrar = next(r for r in results if "registered" in r)
    reader_logs = [r for r in results if "refreshes" in r]
    return _summary(first, registrar, reader_logs, count, seconds)


def _summary(first, registrar, reader_logs, count, seconds) -> dict:
    registered = registrar["registered"]
    lags = []
    for i, at in enumerate(registered):
        number, everywhere = first + i, 0.0
        for log in reader_logs:
            in_force = next((t for known, t in log["refreshes"] if known > number), None)
            everywhere = max(everywhere, float("inf") if in_force is None else in_force - at)
        lags.append(everywhere)
    lags = np.array(lags)
    span = registrar["done"] - registered[0] if registered else seconds
    return {
        "registrations": count,
        "rate": count / span if span else 0.0,
        "lag_p50": float(np.percentile(lags, 50)) if len(lags) else 0.0,
        "lag_p99": float(np.percentile(lags, 99)) if len(lags) else 0.0,
        "lag_max": float(lags.max()) if len(lags) else 0.0,
        "not_in_force": int(np.isinf(lags).sum()),
        "missed": sum(log["missed"] for log in reader_logs),
        "refresh_max": max(
            (max(log["refresh_seconds"], default=0.0) for log in reader_logs), default=0.0
        ),
        "reader_mb_per_second": [log["mb_per_second"] for log in reader_logs],
        "memory": [log["memory"] for log in reader_logs],
    }
