"""The desk benchmark's requests, each explained: every SELECT a request runs, executed again
under EXPLAIN (ANALYZE, BUFFERS), summed per request. The planner's own execution times vary
far less with the machine's load than wall clock, and the plan says why a request is slow.

    python -m bench.desk --keep                     # fill the database once (bench.desk)
    python -m bench.plans                           # per request: queries, ms, buffers
    python -m bench.plans --show closeness          # and the slowest query's plan of each
                                                    # request whose URL contains "closeness"

It uses bench.desk's database (DATABASE_URL, default poimen_desk_bench) as it is.
"""

import argparse
import json
import os
import sys
import tempfile

from bench.desk import DEFAULT_DATABASE_URL, ROOT, request_sets

# Each query of a request that takes at least this long is listed under it.
SHOWN_FROM_MS = 5.0


def _walk(node):
    yield node
    for child in node.get("Plans", ()):
        yield from _walk(child)


def explain(cursor, sql: str) -> dict:
    cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)
    (plan,) = cursor.fetchone()
    plan = plan[0] if isinstance(plan, list) else json.loads(plan)[0]
    top = plan["Plan"]
    nodes = list(_walk(top))
    return {
        "ms": plan["Execution Time"] + plan["Planning Time"],
        "buffers": top.get("Shared Hit Blocks", 0) + top.get("Shared Read Blocks", 0),
        "rows read": max(n.get("Actual Rows", 0) * n.get("Actual Loops", 1) for n in nodes),
        "nodes": sorted(
            {
                n["Node Type"] + (f" {n['Index Name']}" if "Index Name" in n else "")
                for n in nodes
                if n["Node Type"] not in ("Limit", "Result", "Aggregate")
            }
        ),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", default="", help="print the slowest plan of these URLs")
    args = parser.parse_args(argv)
    os.environ.setdefault("DATABASE_URL", DEFAULT_DATABASE_URL)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poimen.settings")
    os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost")
    os.environ.setdefault("POIMEN_HOME", tempfile.mkdtemp(prefix="poimen-desk-plans-"))
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    call_command("collectstatic", interactive=False, verbosity=0)
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench"))
    print(f"{'request':<66} {'queries':>7} {'ms':>7} {'slowest':>7} {'buffers':>8}")
    for name, urls in request_sets():
        if name == "threshold preview":
            continue  # numpy over a cached table, not the planner
        print(f"-- {name}")
        for url, headers in urls:
            client.get(url, **headers)  # warm: caches, the policies
            with CaptureQueriesContext(connection) as captured:
                client.get(url, **headers)
            selects = [q["sql"] for q in captured.captured_queries if q["sql"].startswith("SELECT")]
            with connection.cursor() as cursor:
                plans = [(sql, explain(cursor, sql)) for sql in selects]
            slowest_sql, slowest = max(plans, key=lambda p: p[1]["ms"])
            total = sum(p["ms"] for _, p in plans)
            buffers = sum(p["buffers"] for _, p in plans)
            print(
                f"{url[:66]:<66} {len(plans):7} {total:7.1f} {slowest['ms']:7.1f} {buffers:8}"
                f"  {', '.join(slowest['nodes'])[:120]}"
            )
            for _sql, plan in plans:
                if plan["ms"] >= SHOWN_FROM_MS:
                    shape = ", ".join(plan["nodes"])
                    print(f"    {plan['ms']:7.1f} ms {plan['buffers']:7} buffers  {shape[:150]}")
            if args.show and args.show in url:
                with connection.cursor() as cursor:
                    cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + slowest_sql)
                    print("\n".join(row[0][:240] for row in cursor.fetchall()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
