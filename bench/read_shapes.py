"""The read shapes on real text (docs/read-shapes.md): what their rules cost, what they catch.

    python -m bench.read_shapes            # the locked real-text corpus, bench.matcher's workload
    python -m bench.read_shapes --quick    # 400 records

Cost. check_many cuts every record's markup once (filter/normalise.py's _cut_markup, compiled
where built): every rule of the catalogue, the older ones and norm-v3's read shapes, runs in
that one pass. Its CPU time over the workload's records (normalised beforehand, as check_many
hands them over) is set against check_many's own on the same records, best of three passes,
interleaved. The whole pass is an upper bound on what the new rules add; the target is that
it stays under 5% of check_many.

Detection. Every registered document of the workload is shown in each read shape and checked
(recall), and every unregistered one too (it must stay evidence: precision), against the
registered documents alone, as bench.matcher registers them. bench.matcher's own planted
copies and figures are unchanged by this module.
"""

import argparse
import sys
import time

from bench import realtext
from bench.corpus import PLANTINGS, artifact_kind
from bench.matcher import BATCH
from filter import ArtifactRecord, DerivedFilter, renderings, speedups
from filter.normalise import _cut_markup, _normalise

PATH = "docs/README.md"
SHAPES = {
    "rg -n": lambda text: renderings.path_prefixed(text, PATH),
    "grep -Hn -C": lambda text: renderings.path_prefixed(text, PATH, context_every=3),
    "grep -n -C, one file": lambda text: renderings.path_prefixed(text, context_every=2),
    "git diff": lambda text: renderings.git_diff_added(text, PATH),
    "apply_patch": lambda text: renderings.apply_patch_added(text, PATH),
    "JSON string (UTF-8)": lambda text: renderings.json_string(text, ensure_ascii=False),
    "HTML <pre>": renderings.html_pre,
    "cat -A": renderings.cat_a,
    "bat": lambda text: renderings.bat_full(text, PATH),
}
TARGET = 0.05


def cut_cost(derived_filter: DerivedFilter, records: list[str], *, repeats: int) -> tuple:
    """check_many's CPU seconds over `records` and the markup cut's, best of `repeats`."""
    prepared = [record if record.isascii() else _normalise(record) for record in records]
    best_check, best_cut = float("inf"), float("inf")
    for _ in range(repeats):
        started = time.process_time()
        for start in range(0, len(records), BATCH):
            derived_filter.check_many(records[start : start + BATCH])
        best_check = min(best_check, time.process_time() - started)
        started = time.process_time()
        for text in prepared:
            _cut_markup(text)
        best_cut = min(best_cut, time.process_time() - started)
    return best_check, best_cut


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.read_shapes")
    parser.add_argument("--quick", action="store_true", help="400 records, one pass")
    parser.add_argument("--seed", type=int, default=2026)
    options = parser.parse_args(argv)
    say = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
    documents = realtext.load(say=say)
    corpus_is = realtext.describe(documents, say=say)
    work = realtext.build_workload(
        documents,
        PLANTINGS,
        seed=options.seed,
        n_records=400 if options.quick else 2_000,
        planted_share=0.15,
        paired=True,
    )
    derived_filter = DerivedFilter()
    for number, (name, text) in enumerate(zip(work.artifact_names, work.artifacts, strict=True)):
        derived_filter.add(
            ArtifactRecord.from_text(kind=artifact_kind(number), name=name, text=text)
        )
    derived_filter.check("warm the index up before the clock starts")

    check, cut = cut_cost(derived_filter, work.records, repeats=1 if options.quick else 3)
    megabytes = sum(len(record.encode()) for record in work.records) / 1e6
    print(
        f"Read shapes, real text ({corpus_is}; {speedups.status}): {len(work.records):,} "
        f"records, {megabytes:.2f} MB, {len(work.artifacts)} artifacts, seed {options.seed}"
    )
    share = cut / check
    print(f"  check_many CPU s {check:.3f}; the markup cut (every rule) {cut:.3f}")
    print(
        f"  the cut / check_many {share:.2%}  (target < {TARGET:.0%})  "
        + ("ok" if share < TARGET else "MISSED")
    )

    registered = set(work.artifacts)
    unregistered = [d.text for d in documents if d.text not in registered]
    print(f"\n  {'shape':22} {'copies derived':>16} {'unregistered left evidence':>28}")
    for shape, show in SHAPES.items():
        copies = sum(v.derived for v in derived_filter.check_many(list(map(show, registered))))
        left = sum(not v.derived for v in derived_filter.check_many(list(map(show, unregistered))))
        print(
            f"  {shape:22} {copies:>8} of {len(registered):<5} {left:>18} of {len(unregistered):<5}"
        )


if __name__ == "__main__":
    main()
