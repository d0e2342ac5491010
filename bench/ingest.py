"""Ingest benchmark: `ingest` into PostgreSQL beside the matcher alone, on the same records.

    python -m bench.ingest                      # 100,000 records of ~1 KB, 1,000 artifacts
    python -m bench.ingest --records 10000      # a quicker look
    python -m bench.ingest --passes 3           # best of 3 passes a row (default 2)
    python -m bench.ingest --formats            # records/s per transcript format (bench.formats)

In one run, each phase in a fresh process (so that its peak memory is its own):
- the matcher alone: a DerivedFilter over the artifacts, every record of the file read, parsed
  and checked (check_many, in ingest's batches), nothing stored;
- ingest: `records_ingest` of the same file into a freshly migrated PostgreSQL database that
  holds the same artifacts: reading, checking, and writing records, matches and events batch
  by batch, each batch in one transaction;
- the same with 1 and with --workers worker processes checking batches while the ingest
  process reads and writes;
- ingest in process again with the kinds' policy "exclude" (POIMEN_DEFAULT_ON_DERIVED):
  exclusion only, no record redacted, beside the default, which redacts a copy inside a longer
  turn; compared by wall clock and by the ingest process's CPU time (all of the work but the
  database server's, and less at the mercy of other load on the machine);
- ingest of the first quarter of the file, so that peak memory can be compared across sizes;
- unfiltered ingest (reading and COPY writes, no matching): the rate PostgreSQL takes;
- `ingest --queue`'s service with 1 and 2 real celery workers on a private redis-server
  (bench/queued.py; --no-queue leaves them out).

Records are seeded synthetic assistant turns (bench.corpus's Writer: a Zipf-like vocabulary
and stock phrases, so that unrelated texts hit the index by chance), 2% of them planted copies
of artifacts in the ways models quote (verbatim, quoted, behind a gutter, re-wrapped, ...).
Targets: ingest at least 0.5x the matcher alone, at least 3,000 records/s, memory flat in the
number of records; with redaction on, at least 0.9x the rate of exclusion only.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, nullcontext
from pathlib import Path

from bench.harness import cpu_now, peak_rss_mb, prepared_database, recreate_database
from bench.queued import private_redis

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/poimen_bench"
PLANTED_SHARE = 0.02
WRITES = "writes alone (unfiltered)"


# -- the corpus -------------------------------------------------------------------------------


def write_corpus(folder: Path, *, n_records: int, n_artifacts: int, seed: int) -> dict:
    """Artifacts as .md files under folder/artifacts/skill, records as folder/records.jsonl
    (and its first quarter as records-quarter.jsonl). Streams: memory does not grow with n."""
    from bench.corpus import PLANTINGS, Writer

    writer = Writer(seed)
    # Records from a writer of their own: a Writer recycles its word draws after a few million
    # words, and records drawn from the artifacts' draws would turn into copies of them.
    records_writer = Writer(seed + 1)
    skills = folder / "artifacts" / "skill"
    skills.mkdir(parents=True)
    artifacts = []
    for number in range(n_artifacts):
        text = writer.skill(number)
        (skills / f"skill-{number:05d}.md").write_text(text, encoding="utf-8")
        artifacts.append(text)
    plantings = list(PLANTINGS)
    quarter = n_records // 4
    planted = total_bytes = 0
    with (
        open(folder / "records.jsonl", "w", encoding="utf-8") as full,
        open(folder / "records-quarter.jsonl", "w", encoding="utf-8") as part,
    ):
        for number in range(n_records):
            if records_writer.rng.random() < PLANTED_SHARE:
                how = plantings[number % len(plantings)]
                original = artifacts[records_writer.rng.randrange(min(50, n_artifacts))]
                text = PLANTINGS[how](original, records_writer.assistant_turn)
                planted += 1
            else:
                text = records_writer.assistant_turn()
            line = json.dumps({"id": f"bench-{number:07d}", "text": text}) + "\n"
            total_bytes += len(text.encode("utf-8"))
            full.write(line)
            if number < quarter:
                part.write(line)
    return {"records": n_records, "planted": planted, "mean_bytes": total_bytes / n_records}


# -- the phases, each run in a process of its own ---------------------------------------------


def phase_matcher(folder: Path, records_file: Path, batch_size: int) -> dict:
    from filter import ArtifactRecord, DerivedFilter

    derived_filter = DerivedFilter(min_overlap=0.2)
    for path in sorted((folder / "artifacts" / "skill").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        derived_filter.add(ArtifactRecord.from_text(kind="skill", name=path.stem, text=text))
    derived_filter.check("warm the index before the clock starts")
    baseline = peak_rss_mb()
    n = derived = 0
    started, cpu_started = time.perf_counter(), cpu_now()
    with open(records_file, "rb") as stream:
        # In batches, with check_many, as ingest checks them: the matcher at its best.
        batch: list[str] = []
        for line in stream:
            batch.append(json.loads(line)["text"])
            if len(batch) == batch_size:
                derived += sum(v.derived for v in derived_filter.check_many(batch))
                n, batch = n + len(batch), []
        derived += sum(v.derived for v in derived_filter.check_many(batch)) if batch else 0
        n += len(batch)
    seconds = time.perf_counter() - started
    return {
        "records": n,
        "seconds": seconds,
        "cpu_all_seconds": cpu_now() - cpu_started,
        "derived": derived,
        "baseline_mb": baseline,
    }


def phase_ingest(
    folder: Path, records_file: Path, batch_size: int, workers: int, filtered: bool = True
) -> dict:
    prepared_database(folder)
    from poimen.services import records_ingest

    baseline = peak_rss_mb()
    started, cpu_started, all_started = time.perf_counter(), time.process_time(), cpu_now()
    result = records_ingest(
        paths=[records_file], batch_size=batch_size, workers=workers, filtered=filtered
    )
    seconds = time.perf_counter() - started
    # this process's own CPU time (the checking too when workers is 0): less at the mercy of
    # other load on the machine than the wall clock
    cpu_seconds = time.process_time() - cpu_started
    assert result.errors == 0 and result.new == result.read, result.as_counts()
    return {
        "records": result.new,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "cpu_all_seconds": cpu_now() - all_started,  # its checking processes' too
        "derived": sum(result.excluded.values()) + sum(result.redacted.values()),
        "redacted": sum(result.redacted.values()),
        "baseline_mb": baseline,
    }


def run_phase(
    name: str,
    folder: Path,
    records_file: Path,
    *,
    database_url: str,
    batch_size: int,
    workers=0,
    env_extra=None,
    broker_url: str = "",
):
    if name != "matcher":
        recreate_database(database_url)
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "POIMEN_MANIFEST": str(folder / "manifest.jsonl"),
        "CELERY_BROKER_URL": broker_url,
        **(env_extra or {}),
    }
    command = [sys.executable, "-m", "bench.ingest", "--phase", name, "--folder", str(folder)]
    command += ["--records-file", str(records_file), "--batch-size", str(batch_size)]
    command += ["--workers", str(workers)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"phase {name} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- the report -------------------------------------------------------------------------------


def print_report(corpus: dict, n_artifacts: int, rows: list[tuple[str, dict]]) -> None:
    print(
        f"\n{corpus['records']:,} records (mean {corpus['mean_bytes']:,.0f} bytes, "
        f"{corpus['planted']:,} planted copies), {n_artifacts:,} artifacts, PostgreSQL\n"
    )
    print(
        f"{'phase':<28}{'records':>10}{'seconds':>10}{'records/s':>12}{'peak RSS MB':>14}"
        f"{'CPU us/record':>15}"
    )
    for name, row in rows:
        rate = row["records"] / row["seconds"]
        print(
            f"{name:<28}{row['records']:>10,}{row['seconds']:>10.1f}{rate:>12,.0f}"
            f"{row['peak_mb']:>14,.0f}{cpu_per_record(row):>15,.0f}"
        )
    by_label = dict(rows)
    matcher, *ingests, exclusion_only, quarter = (row for _, row in rows[:6])
    ingest = ingests[-1]
    matcher_rate = matcher["records"] / matcher["seconds"]
    print()
    for (label, _), row in zip(rows[1:4], ingests, strict=True):
        rate = row["records"] / row["seconds"]
        print(
            f"{label:<22} {rate / matcher_rate:5.2f}x the matcher alone (target >= 0.5x), "
            f"{rate:,.0f} records/s (target >= 3,000)"
        )
    growth = ingest["peak_mb"] - quarter["peak_mb"]
    print(
        f"peak memory at 4x the records: {growth:+.1f} MB ({quarter['peak_mb']:,.0f} -> "
        f"{ingest['peak_mb']:,.0f} MB; target: flat)"
    )
    in_process = ingests[0]
    redacting = in_process["records"] / in_process["seconds"]
    excluding = exclusion_only["records"] / exclusion_only["seconds"]
    cpu = exclusion_only["cpu_seconds"] / in_process["cpu_seconds"]
    print(
        f"redaction on, in process: {redacting / excluding:.2f}x the rate of exclusion only by "
        f"the clock, {cpu:.2f}x by CPU time (target >= 0.9x); {in_process['redacted']:,} of "
        f"{in_process['derived']:,} derived redacted"
    )
    print(
        f"derived by ingest: {ingest['derived']:,} (matcher alone: {matcher['derived']:,}; "
        f"exclusion only: {exclusion_only['derived']:,})"
    )
    print(f"PostgreSQL takes {rate_of(by_label[WRITES]):,.0f} records/s (unfiltered ingest)")
    queued = [row for label, row in rows if label.startswith("ingest, queued")]
    if len(queued) == 2:
        one, two = (rate_of(row) for row in queued)
        local_row = by_label["ingest, 1 worker"]
        local = rate_of(local_row)
        print(
            f"queued: 2 workers {two / one:.2f}x 1 worker (target >= 1.5x with the cores), "
            f"1 queued worker {one / local:.2f}x 1 local worker (overhead target <= 20%)"
        )
        one_cpu, two_cpu = (cpu_per_record(row) for row in queued)
        busy = [row["cpu_all_seconds"] / row["seconds"] for row in queued]
        print(
            f"queued CPU a record: 1 worker {one_cpu / cpu_per_record(local_row):.2f}x 1 local "
            f"worker's, 2 workers {two_cpu / one_cpu:.2f}x 1 worker's; cores busy (CPU seconds "
            f"a second): 1 worker {busy[0]:.2f}, 2 workers {busy[1]:.2f}"
        )


def cpu_per_record(row: dict) -> float:
    """Microseconds of CPU a record, every process of the row but PostgreSQL's."""
    return row["cpu_all_seconds"] / row["records"] * 1e6


def rate_of(row: dict) -> float:
    return row["records"] / row["seconds"]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--artifacts", type=int, default=1_000)
    parser.add_argument("--batch-size", type=int, default=1_000)
    parser.add_argument("--workers", type=int, default=2, help="ingest check processes")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--passes", type=int, default=2, help="best of this many passes a row")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL),
        help=f"a PostgreSQL database the bench drops and creates (default {DEFAULT_DATABASE_URL})",
    )
    parser.add_argument(
        "--formats",
        action="store_true",
        help="read and ingest each transcript format instead (bench/formats.py)",
    )
    parser.add_argument(
        "--no-queue", action="store_true", help="leave out the queued rows (no redis-server)"
    )
    parser.add_argument(
        "--phase", choices=["matcher", "ingest", "writes", "queued"], help=argparse.SUPPRESS
    )
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--records-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.formats:
        from bench import formats

        formats.main(["--ingest", "--database-url", args.database_url])
        return
    if args.phase:
        phase_args = (args.folder, args.records_file, args.batch_size)
        if args.phase == "matcher":
            row = phase_matcher(*phase_args)
        elif args.phase == "queued":
            from bench.queued import phase_queued

            row = phase_queued(*phase_args, args.workers)
        else:
            row = phase_ingest(*phase_args, args.workers, filtered=args.phase == "ingest")
        row["peak_mb"] = peak_rss_mb()
        print(json.dumps(row))
        return

    with ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="poimen-bench-"))
        folder = Path(tmp)
        print(f"writing {args.records:,} records and {args.artifacts:,} artifacts ...", flush=True)
        corpus = write_corpus(
            folder, n_records=args.records, n_artifacts=args.artifacts, seed=args.seed
        )
        full, quarter = folder / "records.jsonl", folder / "records-quarter.jsonl"
        exclude = {"POIMEN_DEFAULT_ON_DERIVED": "exclude"}
        phases = [
            ("matcher alone", "matcher", full, 0, None),
            ("ingest, in process", "ingest", full, 0, None),
            ("ingest, 1 worker", "ingest", full, 1, None),
            (f"ingest, {args.workers} workers", "ingest", full, args.workers, None),
            ("ingest, exclusion only", "ingest", full, 0, exclude),
            (f"ingest, {args.workers} workers, 1/4", "ingest", quarter, args.workers, None),
            (WRITES, "writes", full, 0, None),
        ]
        if not args.no_queue:
            phases += [(f"ingest, queued, {n} worker(s)", "queued", full, n, None) for n in (1, 2)]
        best: dict[str, dict] = {}
        broker = private_redis() if not args.no_queue else nullcontext("")
        broker_url = stack.enter_context(broker)
        # Passes interleave the phases, so that a burst of load elsewhere on the machine does
        # not fall on one phase only; each row is its best pass, its peak memory the largest.
        for number in range(1, args.passes + 1):
            for label, phase, records_file, workers, env_extra in phases:
                print(f"pass {number}: {label} ...", flush=True)
                row = run_phase(
                    phase,
                    folder,
                    records_file,
                    database_url=args.database_url,
                    batch_size=args.batch_size,
                    workers=workers,
                    env_extra=env_extra,
                    broker_url=broker_url,
                )
                kept = best.setdefault(label, row)
                peak = max(kept["peak_mb"], row["peak_mb"])
                if row["seconds"] < kept["seconds"]:
                    best[label] = kept = row
                kept["peak_mb"] = peak
        rows = [(label, best[label]) for label, *_ in phases]
        print_report(corpus, args.artifacts, rows)


if __name__ == "__main__":
    main()
