"""The registry split by shingle hash across machines, simulated in one process
(docs/scaling.md).

    python -m bench.registry_shards --artifacts 100000 --shards 1,2,4,8

Each shard holds the entries whose hash falls in its slots (slot = the hash's top 14 bits,
16,384 slots dealt round-robin to the shards, as Redis Cluster deals its hash slots), as its
own index. A check hashes the records once, sends each shard the shingles of its slots, and
merges what comes back. A shingle lives in one shard only, so a shard counts a stock phrase's
entries whole and leaves it out alone: the merged answer is the single index's, entry for
entry (checked here). Measured: each shard's share of the entries (the largest against an
even split), its bytes, the lookups' CPU time per shard against one index's, and the bytes a
check sends and receives per MB of records (8 a shingle out, 12 an anchor back).
"""

import argparse
import sys
import time

import numpy as np

from bench import realtext
from bench.corpus import PLANTINGS
from bench.injections import blocks, vocabulary
from bench.registry import Artifacts
from filter.index import ShingleIndex, boilerplate_run
from filter.segments import Segment, kept_repeats
from filter.shingles import texts_shingles

SLOT_BITS = 14


def slots_of(hashes: np.ndarray) -> np.ndarray:
    return (hashes >> np.uint64(64 - SLOT_BITS)).astype(np.int64)


def sharded(artifacts: Artifacts, count: int, shards: int) -> list[ShingleIndex]:
    """Each shard's index: the entries of its slots, at their positions in the artifacts."""
    owner = np.arange(1 << SLOT_BITS) % shards
    hashes, numbers, positions = [], [], []
    for number in range(count):
        shingles = artifacts.of(number)
        kept = kept_repeats(shingles)
        hashes.append(shingles[kept])
        numbers.append(np.full(len(kept), number, dtype=np.uint32))
        positions.append(kept.astype(np.uint32))
    hashes = np.concatenate(hashes)
    postings = np.stack([np.concatenate(numbers), np.concatenate(positions)], axis=1)
    where = owner[slots_of(hashes)]
    return [
        ShingleIndex([Segment.from_entries(hashes[mine], postings[mine], 0, count)])
        for mine in (where == shard for shard in range(shards))
    ]


def fan_out(indexes: list[ShingleIndex], shingles: np.ndarray, max_run: int):
    """The lookup of `shingles` as the shards answer it, merged; CPU seconds per shard."""
    owner = np.arange(1 << SLOT_BITS) % len(indexes)
    where = owner[slots_of(shingles)]
    found, numbers, places, seconds, anchors_back = [], [], [], [], 0
    for shard, index in enumerate(indexes):
        positions = np.flatnonzero(where == shard).astype(np.uint32)
        started = time.process_time()
        *anchors, left_out = index.lookup_distinctive(shingles[positions], max_run=max_run)
        anchors = left_out.put_back(anchors)
        seconds.append(time.process_time() - started)
        anchors_back += len(anchors[0])
        found.append(positions[anchors[0]])
        numbers.append(anchors[1])
        places.append(anchors[2])
    found = np.concatenate(found)
    order = np.argsort(found, kind="stable")
    merged = (found[order], np.concatenate(numbers)[order], np.concatenate(places)[order])
    return merged, seconds, anchors_back


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--artifacts", type=int, default=100_000)
    parser.add_argument("--shards", default="1,2,4,8")
    parser.add_argument("--seed", type=int, default=26)
    args = parser.parse_args(argv)
    say = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
    documents = realtext.load(say=say)
    work = realtext.build_workload(
        documents, PLANTINGS, seed=args.seed, n_records=2_000, planted_share=0.15, paired=True
    )
    generated = blocks(vocabulary([d.text for d in documents]), args.artifacts, seed=args.seed)
    artifacts = Artifacts(work.artifacts, generated[: args.artifacts - len(work.artifacts)])
    shingles, _, _ = texts_shingles(work.records, 5)
    megabytes = sum(len(r.encode("utf-8")) for r in work.records) / 1e6
    max_run = boilerplate_run(args.artifacts)
    single = sharded(artifacts, args.artifacts, 1)[0]
    expected = single.lookup(shingles)
    started = time.process_time()
    single.lookup_distinctive(shingles, max_run=max_run)
    one_index = time.process_time() - started
    print(f"# The registry split by shingle hash: {args.artifacts:,} artifacts, simulated\n")
    print(
        f"{len(work.records):,} real-text records ({megabytes:.2f} MB) looked up; one index:"
        f" {len(single):,} entries, {single.nbytes / 1e6:.0f} MB, {one_index * 1e3:.0f} ms.\n"
    )
    print(
        "| shards | largest share / even | MB a shard (largest) | lookup ms a shard (slowest)"
        " | sum of shards' ms / one index's | sent KB / MB of records | received KB / MB |"
        " same anchors |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for count in [int(s) for s in args.shards.split(",")]:
        indexes = sharded(artifacts, args.artifacts, count)
        sizes = [len(index) for index in indexes]
        merged, seconds, back = fan_out(indexes, shingles, max_run)
        same = all(np.array_equal(a, b) for a, b in zip(merged, expected, strict=True))
        print(
            f"| {count} | {max(sizes) / (sum(sizes) / count):.3f} |"
            f" {max(i.nbytes for i in indexes) / 1e6:.0f} | {max(seconds) * 1e3:.0f} |"
            f" {sum(seconds) / one_index:.2f} | {len(shingles) * 8 / 1e3 / megabytes:.0f} |"
            f" {back * 12 / 1e3 / megabytes:.0f} | {same} |"
        )


if __name__ == "__main__":
    main()
