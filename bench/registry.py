"""Registry bench: the artifact index at 10^3 to 10^6 artifacts, changing while it is read.

    python -m bench.registry                      # 10^3, 10^4, 10^5, 10^6 (about 5 min)
    python -m bench.registry --sizes 1000,10000   # a quick look
    python -m bench.registry --glibc-defaults     # glibc as a program embedding filter/ has it

The artifacts are the real-text corpus's registered documents (bench/realtext.py, the locked
corpus) and, beyond them, generated injection blocks (bench/injections.py); the records are
the real-text workload's (unrelated excerpts and planted copies), each half (ASCII, non-ASCII)
measured on its own. One store (filter/segment_store.py) grows from empty through each size,
by segments of 20,000 artifacts merged in the background; at each size it measures:

- bytes a shingle: what a compiled lookup reads (keys, postings, directory, bitmap) over the
  entries, and the files' size (with the full hashes that only merges read);
- build time: the store grown to this size from the last (appends and merges), wall clock;
- check_many MB/s on each half (1,000 records a call, CPU time), with precision and recall
  of the planted copies, beside the compiled floor (bench/floor.c, built here with the
  compiler the C module uses, same records, same artifact shingles) and beside check_many
  at the smallest size (a filter kept from then, over the same segments), in seven rounds of
  one pass of each, interleaved: the best MB/s of each and their ratios (a shared machine's
  speed moves by half within minutes: measured minutes apart, two bests meet different
  machines);
- check_many from two threads at once against one, wall clock, best of 3 (the compiled loops
  release the GIL);
- registrations: `--rate` a second for `--seconds` while four readers (two server processes,
  two queue workers) check records; the time until each registration is in force in every
  reader (p50, p99, max), the rate sustained, the readers' MB/s meanwhile and their memory
  (RSS counts the shared mapping whole in each, PSS splits it among them).

check_many runs with glibc's allocator set as every poimen process sets it (poimen.allocator,
as Django starts: the server's workers, the queue workers, the commands; a setting the
environment holds wins), unless --glibc-defaults: with glibc's own, a batch's arrays go back
to the kernel after each call and are faulted in again by the next.

Prints a markdown report on stdout (bench/results/ keeps dated ones); progress on stderr.
"""

import argparse
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from bench import realtext
from bench.corpus import PLANTINGS
from bench.injections import blocks, vocabulary
from bench.matcher import BATCH, HALVES, half_of, precision_recall, timed_batches
from bench.registry_procs import run_live
from bench.registry_report import report
from filter import DEFAULT_PARAMS, ArtifactRecord, DerivedFilter
from filter.index import ShingleIndex
from filter.segment_store import SegmentStore, StoreView
from filter.shingles import texts_shingles
from poimen.allocator import CHECKING_ALLOCATOR, use_checking_allocator

ROOT = Path(__file__).resolve().parent.parent
# each run in a folder of its own: two runs from one checkout must not share a store
CACHE = ROOT / "bench" / ".cache"
FILL_STEP = 20_000
# check_many and the floor, one pass of each a round: the best of each is what is compared
ROUNDS = 7
_EMPTY = np.empty(0, dtype=np.uint64)
_EMITTED = datetime(2026, 12, 1, tzinfo=UTC)


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Artifacts:
    """Every artifact of the run, numbered: texts, shingles (one array), light records."""

    def __init__(self, real: list[str], generated: list[str]):
        self.texts = real + generated
        self.n_real = len(real)
        shingles, self.starts, n_tokens = [], [0], []
        for at in range(0, len(self.texts), 50_000):
            part, _, tokens = texts_shingles(self.texts[at : at + 50_000], DEFAULT_PARAMS.k)
            shingles.append(part)
            n_tokens += tokens
        self.shingles = np.concatenate(shingles)
        counts = [max(n - DEFAULT_PARAMS.k + 1, 0) for n in n_tokens]
        self.starts = np.concatenate(([0], np.cumsum(counts)))
        self.n_tokens = n_tokens

    def of(self, number: int) -> np.ndarray:
        return self.shingles[self.starts[number] : self.starts[number + 1]]

    def text(self, number: int) -> str:
        return self.texts[number]

    def light(self, number: int) -> ArtifactRecord:
        """What a process keeps of an artifact whose shingles the store holds."""
        kind = "reference" if number < self.n_real and number % 2 else "skill"
        if number >= self.n_real:
            kind = "injection"
        return ArtifactRecord(
            kind=kind,
            name=f"artifact-{number}",
            sha256=hashlib.sha256(self.texts[number].encode("utf-8")).hexdigest(),
            shingles=_EMPTY,
            emitted_at=_EMITTED,
            params=DEFAULT_PARAMS,
            n_tokens=self.n_tokens[number],
        )


def build_floor(work: Path) -> Path:
    binary = work / "floor"
    compiler = shutil.which("cc") or shutil.which("gcc")
    subprocess.run(
        [compiler, "-O3", "-o", str(binary), str(ROOT / "bench" / "floor.c")], check=True
    )
    return binary


def write_records(records: list[str], path: Path) -> None:
    with open(path, "wb") as out:
        for record in records:
            data = record.encode("utf-8")
            out.write(len(data).to_bytes(4, "little") + data)


def interleaved_speeds(
    binary, artifacts: Artifacts, size: int, files: dict, check_many, picked, smallest=None
):
    """check_many's and the floor's MB/s on each half, in ROUNDS rounds: one pass of
    check_many over each half, then one of the floor (a process that loaded the table once),
    then, given `smallest` (check_many at the smallest size), one pass of it over each half,
    so that all meet the machine's quiet moments and its busy ones alike. The best MB/s of
    each; check_many's ratio to the floor and to `smallest` (None without it); check_many's
    last verdicts. (One round's ratio is no better: a single pass swings by a third.)"""
    hashes = binary.parent / "floor-hashes.bin"
    artifacts.shingles[: artifacts.starts[size]].tofile(hashes)
    args = [str(binary), str(hashes), *(str(files[h]) for h in HALVES), "--rounds"]
    speeds = {h: [] for h in HALVES}
    floors = {h: [] for h in HALVES}
    at_smallest = {h: [] for h in HALVES}
    verdicts = {}
    megabytes = {h: sum(len(r.encode("utf-8")) for r in picked[h]) / 1e6 for h in HALVES}
    with subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as run:
        for _ in range(ROUNDS):
            for half in HALVES:
                seconds, verdicts[half] = timed_batches(check_many, picked[half], 1, BATCH)
                speeds[half].append(megabytes[half] / seconds)
            run.stdin.write("go\n")
            run.stdin.flush()
            for half in HALVES:
                floors[half].append(float(run.stdout.readline().split()[3]))
            for half in HALVES if smallest is not None else ():
                seconds, _ = timed_batches(smallest, picked[half], 1, BATCH)
                at_smallest[half].append(megabytes[half] / seconds)
        run.stdin.close()
    best = {h: max(speeds[h]) for h in HALVES}
    floor = {h: max(floors[h]) for h in HALVES}
    flat = None if smallest is None else {h: best[h] / max(at_smallest[h]) for h in HALVES}
    return best, floor, {h: best[h] / floor[h] for h in HALVES}, flat, verdicts


def grow(store, derived_filter, artifacts: Artifacts, size: int) -> float:
    """The store and the filter from their size to `size`; wall seconds."""
    started = time.monotonic()
    end = store.read().end
    while end < size:
        upto = min(size, end + FILL_STEP)
        store.append([(n, artifacts.of(n)) for n in range(end, upto)])
        end = upto
    while store.compact():
        pass
    seconds = time.monotonic() - started
    for number in range(len(derived_filter), size):
        derived_filter.add(artifacts.light(number), indexed=False)
    return seconds


def current_index(view: StoreView, derived_filter) -> list:
    manifest, segments = view.current()
    derived_filter.use_index(
        ShingleIndex().using(segments, removed=manifest.removed, limit=len(derived_filter))
    )
    return list(segments)


def smallest_filter(view: StoreView, artifacts: Artifacts, size: int) -> DerivedFilter:
    """A filter of the first `size` artifacts over the store's segments as they are now, kept
    while the store grows: the segments never change, and their mappings outlive their files."""
    smallest = DerivedFilter()
    for number in range(size):
        smallest.add(artifacts.light(number), indexed=False)
    current_index(view, smallest)
    return smallest


def threaded_speed(derived_filter, records: list[str], threads: int, repeats: int = 3) -> float:
    """MB/s of wall clock with `threads` threads checking the records between them, the best
    of `repeats` (one pass swung by half from run to run on this shared machine)."""
    parts = [records[i::threads] for i in range(threads)]

    def work(part):
        for start in range(0, len(part), BATCH):
            derived_filter.check_many(part[start : start + BATCH])

    best = float("inf")
    for _ in range(repeats):
        workers = [threading.Thread(target=work, args=(part,)) for part in parts]
        started = time.monotonic()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        best = min(best, time.monotonic() - started)
    return sum(len(r.encode("utf-8")) for r in records) / 1e6 / best


def measure_size(
    size, store, view, derived_filter, artifacts, work, halves, floor, files, args, smallest
):
    """The row of one size, and the filter of the smallest size (`smallest`; None at it:
    made here, over the segments this size is measured with)."""
    row = {"size": size}
    row["build"] = grow(store, derived_filter, artifacts, size)
    segments = current_index(view, derived_filter)
    kept = smallest if smallest is not None else smallest_filter(view, artifacts, size)
    entries = sum(len(s) for s in segments)
    row["segments"] = len(segments)
    row["bytes_a_shingle"] = sum(s.nbytes for s in segments) / entries
    files_bytes = sum((store.path / name).stat().st_size for name in store.read().segments)
    row["file_bytes_a_shingle"] = files_bytes / entries
    row["entries"] = entries
    derived_filter.check("warm the index up before the clock starts")
    picked = {h: [work.records[i] for i in halves[h]] for h in HALVES}
    best, row["floor"], row["ratio"], row["flat"], verdicts = interleaved_speeds(
        floor,
        artifacts,
        size,
        files,
        lambda batch: [v.derived for v in derived_filter.check_many(batch)],
        picked,
        None if smallest is None else lambda batch: [v.derived for v in smallest.check_many(batch)],
    )
    for half in HALVES:
        row[half] = best[half]
        planted = [work.planted[i] for i in halves[half]]
        row[f"{half} recall"] = precision_recall(verdicts[half], planted)
    say(f"  {size:,}: threads...")
    row["one thread"] = threaded_speed(derived_filter, work.records, 1)
    row["two threads"] = threaded_speed(derived_filter, work.records, 2)
    say(f"  {size:,}: registrations at {args.rate}/s for {args.seconds}s...")
    row["live"] = run_live(
        store.path,
        derived_filter,
        artifacts.light,
        artifacts.text,
        work.records,
        readers=args.readers,
        rate=args.rate,
        seconds=args.seconds,
    )
    # the registrations are the next artifacts: the filter takes them in as the readers did
    grow(store, derived_filter, artifacts, store.read().end)
    return row, kept


def run(args) -> tuple[list[dict], dict]:
    documents = realtext.load(say=say)
    corpus_is = realtext.describe(documents, say=say)
    work = realtext.build_workload(
        documents, PLANTINGS, seed=args.seed, n_records=2_000, planted_share=0.15, paired=True
    )
    halves = {h: [i for i, r in enumerate(work.records) if half_of(r) == h] for h in HALVES}
    sizes = sorted(args.sizes)
    registrations = int(args.rate * args.seconds) + 1
    needed = sizes[-1] + registrations * len(sizes) - len(work.artifacts)
    say(f"generating {needed:,} injection blocks...")
    words = vocabulary([d.text for d in documents])
    generated = blocks(words, needed, seed=args.seed)
    say("shingling every artifact...")
    artifacts = Artifacts(work.artifacts, generated)
    CACHE.mkdir(parents=True, exist_ok=True)
    work_dir = Path(tempfile.mkdtemp(prefix="registry-", dir=CACHE))
    try:
        return measure_all(args, work, halves, artifacts, work_dir, corpus_is)
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)


def measure_all(args, work, halves, artifacts, work_dir: Path, corpus_is) -> tuple[list, dict]:
    sizes = sorted(args.sizes)
    store = SegmentStore(work_dir / "store")
    view = StoreView(store)
    files = {h: work_dir / f"records-{i}.bin" for i, h in enumerate(HALVES)}
    for half in HALVES:
        write_records([work.records[i] for i in halves[half]], files[half])
    floor = build_floor(work_dir)
    derived_filter = DerivedFilter()
    smallest = None
    rows = []
    for size in sizes:
        say(f"at {size:,} artifacts...")
        row, smallest = measure_size(
            size,
            store,
            view,
            derived_filter,
            artifacts,
            work,
            halves,
            floor,
            files,
            args,
            smallest,
        )
        rows.append(row)
        say(f"  {row}")
    context = {
        "corpus": corpus_is,
        "halves": halves,
        "work": work,
        "seed": args.seed,
        "allocator": args.allocator,
    }
    return rows, context


def allocator_in_force(set_here: list[str]) -> str:
    """What the report says of glibc's allocator (its settings move check_many at 10^3 by a
    fifth or more): those the environment holds and those set here as poimen sets them."""
    ours = ", ".join(f"{k}={CHECKING_ALLOCATOR[k]}" for k in set_here)
    held = ", ".join(f"{k}={v}" for k, v in os.environ.items() if k.startswith("MALLOC_"))
    described = [
        f"{ours} (poimen.allocator)" if ours else "",
        f"{held} (the environment)" if held else "",
    ]
    return "; ".join(part for part in described if part) or "glibc's defaults"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--rate", type=float, default=100.0, help="registrations a second")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument(
        "--glibc-defaults",
        action="store_true",
        help="leave glibc's allocator as it is, not as poimen's processes set it",
    )
    args = parser.parse_args(argv)
    args.allocator = allocator_in_force([] if args.glibc_defaults else use_checking_allocator())
    args.sizes = [int(s) for s in args.sizes.split(",")]
    started = time.monotonic()
    rows, context = run(args)
    print(report(rows, context, args, time.monotonic() - started, platform.platform()))


if __name__ == "__main__":
    main()
