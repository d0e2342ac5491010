"""The read shapes on real text (docs/read-shapes.md): what their rules cost, what they catch.

    python -m bench.read_shapes            # the locked real-text corpus, bench.matcher's workload
    python -m bench.read_shapes --quick    # 400 records

Cost. check_many cuts every record's markup once (filter/markup.py's cut_markup, compiled
where built): every rule of the catalogue, the older ones and norm-v3's read shapes, runs in
that one pass. The pass is timed as it is now and as it was before the read shapes (the
compiled module of NORM_V2_COMMIT, built from git into bench/.cache/reference/ with the C
compiler setup.py uses), on the workload's records normalised beforehand, as check_many hands
them over; what the new rules add is the difference, set against check_many's own CPU time on
the same records. Best of three passes, interleaved. The target: under 5% of check_many.

Detection. Every registered document of the workload is shown in each read shape and checked
(recall), and every unregistered one too (it must stay evidence: precision), against the
registered documents alone, as bench.matcher registers them. bench.matcher's own planted
copies and figures are unchanged by this module.
"""

import argparse
import importlib.util
import subprocess
import sys
import sysconfig
import time

from bench import realtext
from bench.corpus import PLANTINGS, artifact_kind
from bench.matcher import BATCH
from filter import ArtifactRecord, DerivedFilter, speedups
from filter.markup import cut_markup
from filter.normalise import _normalise
from tests import renderings

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
# The last commit whose normaliser is norm-v2: its compiled cut is the one before the shapes.
NORM_V2_COMMIT = "5aba7ea"
REFERENCE = realtext.CACHE / "reference"


def norm_v2_cut():
    """norm-v2's compiled strip_markup, built once from NORM_V2_COMMIT's _speedups.c."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    built = REFERENCE / f"_speedups_norm_v2{suffix}"
    if not built.exists():
        REFERENCE.mkdir(parents=True, exist_ok=True)
        source = subprocess.run(
            ["git", "show", f"{NORM_V2_COMMIT}:filter/_speedups.c"],
            cwd=realtext.ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        source = source.replace("PyInit__speedups", "PyInit__speedups_norm_v2")
        source = source.replace('"filter._speedups"', '"_speedups_norm_v2"')
        (REFERENCE / "_speedups_norm_v2.c").write_text(source)
        compiler = (sysconfig.get_config_var("CC") or "cc").split()
        subprocess.run(
            [
                *compiler,
                "-O3",
                "-shared",
                "-fPIC",
                f"-I{sysconfig.get_paths()['include']}",
                f"-I{realtext.ROOT / 'filter'}",
                "-o",
                str(built),
                str(REFERENCE / "_speedups_norm_v2.c"),
            ],
            check=True,
        )
    spec = importlib.util.spec_from_file_location("_speedups_norm_v2", built)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.strip_markup


def cut_cost(derived_filter: DerivedFilter, records: list[str], *, repeats: int) -> dict:
    """CPU seconds over `records`, best of `repeats`, interleaved: check_many, the markup cut
    now, and norm-v2's cut."""
    prepared = [record if record.isascii() else _normalise(record) for record in records]
    cuts = {"now": cut_markup, "norm-v2": norm_v2_cut()}
    best = {"check_many": float("inf")} | {name: float("inf") for name in cuts}
    for _ in range(repeats):
        started = time.process_time()
        for start in range(0, len(records), BATCH):
            derived_filter.check_many(records[start : start + BATCH])
        best["check_many"] = min(best["check_many"], time.process_time() - started)
        for name, cut in cuts.items():
            started = time.process_time()
            for _ in range(10):  # the cut alone is short: ten passes a measure
                for text in prepared:
                    cut(text)
            best[name] = min(best[name], (time.process_time() - started) / 10)
    return best


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

    best = cut_cost(derived_filter, work.records, repeats=1 if options.quick else 5)
    megabytes = sum(len(record.encode()) for record in work.records) / 1e6
    print(
        f"Read shapes, real text ({corpus_is}; {speedups.status}): {len(work.records):,} "
        f"records, {megabytes:.2f} MB, {len(work.artifacts)} artifacts, seed {options.seed}"
    )
    added = best["now"] - best["norm-v2"]
    share = added / best["check_many"]
    print(
        f"  CPU s: check_many {best['check_many']:.4f}; the markup cut now {best['now']:.4f}, "
        f"norm-v2's {best['norm-v2']:.4f}"
    )
    print(
        f"  what the read shapes add / check_many {share:.2%}  (target < {TARGET:.0%})  "
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
