"""What the desk's exact counts cost: each list filter of bench.desk counted as the lists count
(selectors.list_counts: one aggregate, the records and those without a verdict) and, beside
it, the way they counted before (a walk of the overlap index that stops at COUNT_CAP + 1), on
bench.desk's database.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/poimen_desk_bench python -m bench.desk
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/poimen_desk_bench python -m bench.desk_counts

Fill the database with bench.desk first (10^6 records, 100,000 exclusions). Each count is run
five times after one warm run; the median is shown, with the ratio exact / capped and the
scans in the exact count's plan (EXPLAIN), which should read no table. Target (the lists'
own): a page's p95 <= 150 ms, counts included.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/poimen_desk_bench"

CASES = [
    ("exclusions", {}),
    ("exclusions", {"kind": "skill"}),
    ("exclusions", {"verdict": "unreviewed"}),
    ("exclusions", {"overlap_min": 0.9, "overlap_max": 0.95}),
    ("exclusions", {"source": "bench-3", "kind": "reference"}),
    ("exclusions", {"verdict": "confirmed"}),
    ("near_misses", {}),
    ("near_misses", {"kind": "reference"}),
    ("near_misses", {"overlap_min": 0.5}),
]


def _median_ms(run, n: int) -> float:
    run()
    times = []
    for _ in range(n):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    url = os.environ.setdefault("DATABASE_URL", DEFAULT_DATABASE_URL)
    if not url.startswith("postgres"):
        raise SystemExit("bench.desk_counts needs PostgreSQL: set DATABASE_URL=postgres://…")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poimen.settings")
    os.environ.setdefault("POIMEN_HOME", tempfile.mkdtemp(prefix="poimen-desk-counts-"))
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.db import connection

    from poimen import selectors
    from poimen.models import Record
    from poimen.selectors.common import COUNT_CAP

    if not Record.objects.exists():
        raise SystemExit("no records: fill the database with python -m bench.desk first")
    lists = {"exclusions": selectors.exclusion_list, "near_misses": selectors.near_miss_list}
    print(
        f"{'list and filters':<48} {'capped ms':>9} {'exact ms':>9} {'ratio':>6}  exact counts"
        "  [scans]"
    )
    for list_name, filters in CASES:
        listed = lists[list_name](filters=selectors.ListFilters(**filters))

        def capped(listed=listed):
            walked = listed.order_by("-best_overlap", "-id").values("id")[: COUNT_CAP + 1]
            return walked.count()

        def exact(listed=listed):
            return selectors.list_counts(listed)

        capped_ms = _median_ms(capped, args.runs)
        exact_ms = _median_ms(exact, args.runs)
        counted = exact()
        label = f"{list_name} {filters or ''}".strip()
        print(
            f"{label:<48} {capped_ms:9.1f} {exact_ms:9.1f} {exact_ms / capped_ms:5.1f}x  "
            f"{counted.total:,} ({counted.left:,} unreviewed)  [{scans(connection, listed)}]"
        )
    return 0


def scans(connection, listed) -> str:
    """The scans in the plan of the exact count: node type and index or table."""
    import json

    from django.test.utils import CaptureQueriesContext

    from poimen import selectors

    with CaptureQueriesContext(connection) as captured:
        selectors.list_counts(listed)
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + captured.captured_queries[-1]["sql"])
        (plan,) = json.loads(raw) if isinstance(raw := cursor.fetchone()[0], str) else raw
    found = []

    def walk(node):
        if "Scan" in node["Node Type"]:
            found.append(f"{node['Node Type']} {node.get('Index Name') or node['Relation Name']}")
        for child in node.get("Plans", ()):
            walk(child)

    walk(plan["Plan"])
    return ", ".join(found)


if __name__ == "__main__":
    raise SystemExit(main())
