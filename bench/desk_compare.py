"""Review desk, trees back to back: the same list requests timed from two or more source trees
(say main and a branch) on one filled database, the trees taking turns, so that the load of a
shared machine falls on each alike.

    python -m bench.desk --records 200000            # fill the database once (bench.desk)
    git archive <commit> | tar -x -C /tmp/old        # another tree; its filter/_speedups built
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/poimen_desk_bench \\
        python -m bench.desk_compare old=/tmp/old new=. --rounds 2 --requests 50

Each turn is a process of this Python run in the tree (its code first on sys.path, its
templates and settings): it logs in as the bench user and times, through Django's test
Client, bench.desk's request sets named by --sets (default the lists, the search and review
mode), with the tree's own bench.desk.request_sets, timed and p95, so a tree as old as the
bench's first version can be asked. Prints one line per tree, set and round: the least, p50
and p95 ms (the least, the floor a quiet machine would give, moves far less with the load than
p95); then, per tree and set, the median of the rounds' figures.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT_SETS = ["exclusions page", "near-miss page", "exclusions search", "review mode next"]

# Run inside a tree: its own bench.desk, its own poimen.
TURN = """
import json, os, statistics, sys
sys.path.insert(0, os.getcwd())
import django
django.setup()
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
import poimen
from bench import desk
assert poimen.__file__.startswith(os.getcwd()), poimen.__file__
call_command("collectstatic", interactive=False, verbosity=0)
wanted, n = json.loads(sys.argv[1]), int(sys.argv[2])
client = Client()
client.force_login(get_user_model().objects.get(username=desk.BENCH_USER))
get = desk.test_client_get(client)
out = []
for name, urls in desk.request_sets():
    if name in wanted:
        times = desk.timed(get, urls, n)
        out.append([name, min(times), statistics.median(times), desk.p95(times)])
print(json.dumps(out))
"""


def turn(tree: Path, home: str, sets: list[str], requests: int) -> list:
    env = {
        **os.environ,
        "PYTHONPATH": str(tree),
        "DJANGO_SETTINGS_MODULE": "poimen.settings",
        "ALLOWED_HOSTS": "testserver,localhost",
        "POIMEN_HOME": home,
    }
    done = subprocess.run(
        [sys.executable, "-c", TURN, json.dumps(sets), str(requests)],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", help="NAME=PATH, in the order they take turns")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--sets", nargs="+", default=DEFAULT_SETS)
    args = parser.parse_args(argv)
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        raise SystemExit("set DATABASE_URL to the database bench.desk filled")
    trees = [(name, Path(path).resolve()) for name, path in (t.split("=", 1) for t in args.trees)]
    homes = {name: tempfile.mkdtemp(prefix=f"poimen-desk-compare-{name}-") for name, _ in trees}
    width = max(len(name) for name, _ in trees)
    seen = {}  # (set, tree) -> [(min, p50, p95) of each round]
    for round_number in range(1, args.rounds + 1):
        for name, tree in trees:
            for set_name, low, median, high in turn(tree, homes[name], args.sets, args.requests):
                seen.setdefault((set_name, name), []).append((low, median, high))
                print(
                    f"{round_number}  {name:<{width}}  {set_name:<18} min {low:6.1f}  "
                    f"p50 {median:6.1f}  p95 {high:6.1f}",
                    flush=True,
                )
    print("\nmedian of the rounds")
    set_order = list(dict.fromkeys(set_name for set_name, _ in seen))
    tree_order = [name for name, _ in trees]
    for (set_name, name), rounds in sorted(
        seen.items(), key=lambda kv: (set_order.index(kv[0][0]), tree_order.index(kv[0][1]))
    ):
        low, p50, p95 = (statistics.median(r[i] for r in rounds) for i in range(3))
        print(f"   {name:<{width}}  {set_name:<18} min {low:6.1f}  p50 {p50:6.1f}  p95 {p95:6.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
