"""API benchmark: POST /api/v1/check through the production server beside the library.

    python -m bench.api                        # 4,000 records of ~2 KB, 1,000 artifacts
    python -m bench.api --records 1000         # a quicker look

In one run, on the same records (bench.ingest's corpus: synthetic assistant turns, two to a
record so that a record is about 2 KB, 2% planted copies of artifacts):
- the library: a DerivedFilter over the artifacts, check_many in batches of 100, in one process;
- ingest: `records_ingest` of the records into a fresh PostgreSQL database holding the artifacts;
- the API: `manage.py serve` (gunicorn, 2 sync workers) on another fresh database with the
  same artifacts, and 4 concurrent clients on one persistent connection each:
  batches of 100 with store false; single-record requests with store false (latency p50, p99);
  batches of 100 with store true (the records stored as ingest stores them).
- one client sending single records one after the other (store false, then store true); with
  store false each request goes to a bare WSGI app (bench/bare_wsgi.py) under the same
  gunicorn settings too, in turn with poimen's, so that both meet the same load.
Targets (issues 10 and 23): batches of 100 at least 0.8x the library's records/s; one client's
single records, store false, p50 at most 2x and p99 at most 3x the bare app's; store true at
least 0.5x ingest's records/s.
"""

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.harness import recreate_database
from bench.ingest import DEFAULT_DATABASE_URL, ROOT, write_corpus

CLIENTS, WORKERS, BATCH = 4, 2, 100


def _two_turn_records(folder: Path) -> list[dict]:
    """The corpus's records, two to a record (about 2 KB each)."""
    lines = [json.loads(line) for line in open(folder / "records.jsonl", encoding="utf-8")]
    return [
        {"id": f"api-{n:07d}", "text": a["text"] + "\n\n" + b["text"]}
        for n, (a, b) in enumerate(zip(lines[::2], lines[1::2], strict=False))
    ]


def _django(database_url: str, manifest: Path):
    os.environ["DATABASE_URL"] = database_url
    os.environ["POIMEN_MANIFEST"] = str(manifest)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poimen.settings")
    import django

    django.setup()


def phase_library(folder: Path, records: list[dict]) -> dict:
    from filter import ArtifactRecord, DerivedFilter

    derived_filter = DerivedFilter(min_overlap=0.2)
    for path in sorted((folder / "artifacts" / "skill").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        derived_filter.add(ArtifactRecord.from_text(kind="skill", name=path.stem, text=text))
    derived_filter.check("warm the index")
    started = time.perf_counter()
    derived = 0
    for start in range(0, len(records), BATCH):
        texts = [r["text"] for r in records[start : start + BATCH]]
        derived += sum(v.derived for v in derived_filter.check_many(texts))
    return {"records": len(records), "seconds": time.perf_counter() - started, "derived": derived}


def _prepared_database(folder: Path, database_url: str) -> None:
    """A fresh database with the artifacts (and, for the API, a token in bench/token)."""
    from django.core.management import call_command

    from poimen.services import artifacts_import

    call_command("migrate", verbosity=0)
    imported = artifacts_import(path=folder / "artifacts", manifest=folder / "manifest.jsonl")
    assert imported.registered and not imported.problems, imported.problems


def phase_ingest(folder: Path, records: list[dict], database_url: str) -> dict:
    from poimen.services import records_ingest

    _prepared_database(folder, database_url)
    path = folder / "records-2kb.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    started = time.perf_counter()
    result = records_ingest(paths=[path], source="bench", batch_size=1000)
    seconds = time.perf_counter() - started
    assert result.new == len(records), result.as_counts()
    derived = sum(result.excluded.values()) + sum(result.redacted.values())
    return {"records": result.new, "seconds": seconds, "derived": derived} | _refresh_times()


def _refresh_times() -> dict:
    """What a server process pays to follow one change, in ms (best of 3): its index loaded
    whole, against a refresh after one artifact is registered and after a threshold moves."""
    from poimen.decision.artifact_index import artifact_index_load
    from poimen.decision.index_version import LiveIndex
    from poimen.services import artifact_register, threshold_change

    def best(step) -> float:
        times = []
        for round_ in range(3):
            live = LiveIndex()
            live.current()
            step(round_)
            started = time.perf_counter()
            live.current()
            times.append(time.perf_counter() - started)
        return min(times) * 1000

    full = []
    for _ in range(3):
        started = time.perf_counter()
        artifact_index_load()
        full.append(time.perf_counter() - started)
    text = "A new skill registered while the servers run, with enough words to be kept. " * 6
    added = best(lambda n: artifact_register(kind="skill", name=f"bench-new-{n}", text=text))
    policy = best(lambda n: threshold_change(kind="skill", value=0.7 + n / 100, reason="bench"))
    return {
        "refresh_full_ms": min(full) * 1000,
        "refresh_added_ms": added,
        "refresh_policy_ms": policy,
    }


def phase_server_setup(folder: Path, records: list[dict], database_url: str) -> dict:
    from django.contrib.auth.models import Permission, User

    from poimen.services.tokens import api_token_create

    _prepared_database(folder, database_url)
    user = User.objects.create_user("bench")
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["check_records", "register_artifact"])
    )
    from poimen.management.commands.serve import gunicorn_command

    bare = gunicorn_command(bind="{bind}", workers=WORKERS, app="bench.bare_wsgi:application")
    return {"token": api_token_create(username="bench", name="bench").raw, "bare": bare}


# -- the clients ------------------------------------------------------------------------------


class _Connection:
    def __init__(self, port: int, token: str):
        self.port, self.token = port, token
        self.connection = None

    def post(self, path: str, body: dict) -> dict:
        payload = json.dumps(body).encode("utf-8")
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        for attempt in range(2):  # a sync worker closes idle connections: reconnect once
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            try:
                self.connection.request("POST", path, payload, headers)
                response = self.connection.getresponse()
                data = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.connection.close()
                    self.connection = None
                break
            except (http.client.HTTPException, OSError):
                self.connection.close()
                self.connection = None
                if attempt:
                    raise
        assert response.status == 200, (response.status, data[:300])
        return json.loads(data)


def _concurrently(port: int, token: str, requests: list[dict]) -> tuple[float, list[float]]:
    """Send `requests` (check bodies) from CLIENTS threads; wall seconds and each latency."""
    latencies: list[float] = []
    lock = threading.Lock()
    queue = list(reversed(requests))

    def client():
        connection = _Connection(port, token)
        while True:
            with lock:
                if not queue:
                    return
                body = queue.pop()
            started = time.perf_counter()
            answer = connection.post("/api/v1/check", body)
            elapsed = time.perf_counter() - started
            assert len(answer["results"]) == len(body["records"])
            with lock:
                latencies.append(elapsed)

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started, latencies


def _one_client(port: int, token: str, requests: list[dict]) -> list[float]:
    """Each latency of `requests` sent one after the other by one client (the issue's
    measure: a memory system checking each write as it makes it)."""
    connection, latencies = _Connection(port, token), []
    for body in requests:
        started = time.perf_counter()
        connection.post("/api/v1/check", body)
        latencies.append(time.perf_counter() - started)
    return latencies


def _percentiles(latencies: list[float]) -> tuple[float, float]:
    """p50 and p99, in ms."""
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return statistics.median(ordered) * 1000, p99 * 1000


def _bare(port: int, command: list[str]) -> subprocess.Popen:
    """The bare app under the same gunicorn settings as `serve`."""
    command = [c.replace("{bind}", f"127.0.0.1:{port}") for c in command]
    server = subprocess.Popen(
        [sys.executable, *command], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _wait_for(port, server, "/")
    return server


def _side_by_side(port: int, token: str, bare_port: int, requests: list[dict]):
    """Each request sent to poimen and to the bare app in turn (which goes first alternates),
    by one client on a kept-alive connection to each: the latencies of both, under the same
    load from moment to moment (on a shared machine it moves within seconds)."""
    ours, bare = _Connection(port, token), _Connection(bare_port, "none")
    timed: tuple[list[float], list[float]] = ([], [])
    for n, body in enumerate(requests):
        pair = [(ours, timed[0]), (bare, timed[1])]
        for connection, latencies in pair if n % 2 else pair[::-1]:
            started = time.perf_counter()
            connection.post("/api/v1/check", body)
            latencies.append(time.perf_counter() - started)
    return timed


def _wait_for(port: int, server: subprocess.Popen, path: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", path)
            if connection.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    server.terminate()
    sys.exit(f"the server did not answer {path} within 60 s")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _serve(port: int, env: dict) -> subprocess.Popen:
    """`manage.py serve`: the production server, gunicorn with WORKERS worker processes."""
    env = {
        **env,
        "POIMEN_HOME": tempfile.mkdtemp(prefix="poimen-bench-api-home-"),
        "SECRET_KEY": "bench-api-only-" + "k" * 40 + "-not-a-real-secret",
        "ALLOWED_HOSTS": "127.0.0.1",
    }
    command = [sys.executable, str(ROOT / "manage.py"), "serve", "--port", str(port)]
    command += ["--workers", str(WORKERS)]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    _wait_for(port, server, "/api/v1/health")
    return server


def run_api(folder: Path, records: list[dict], database_url: str, token: str, bare: list) -> dict:
    port, bare_port = _free_port(), _free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "POIMEN_MANIFEST": str(folder / "m.jsonl")}
    server = _serve(port, env)
    bare_server = _bare(bare_port, bare)
    try:
        # Every worker loads its index on its first check: warm them all before the clock.
        warm = [{"records": [records[0]], "store": False}] * (WORKERS * 4)
        _concurrently(port, token, warm)
        batches = [
            {"records": records[s : s + BATCH], "store": False}
            for s in range(0, len(records), BATCH)
        ]
        batch_seconds, _ = _concurrently(port, token, batches)
        singles = [{"records": [r], "store": False} for r in records[: min(2000, len(records))]]
        single_seconds, latencies = _concurrently(port, token, singles)
        _side_by_side(port, token, bare_port, singles[:50])
        ours, theirs = _side_by_side(port, token, bare_port, singles)
        one_client, bare_app = _percentiles(ours), _percentiles(theirs)
        fresh = [{"records": [{**r, "id": f"one-{r['id']}"}], "store": True} for r in records]
        one_client_stored = _percentiles(_one_client(port, token, fresh[: len(singles)]))
        stored = [{"records": b["records"], "store": True} for b in batches]
        store_seconds, _ = _concurrently(port, token, stored)
    finally:
        for running in (server, bare_server):
            running.terminate()
            running.wait(timeout=30)
    latencies.sort()
    return {
        "batch_rate": len(records) / batch_seconds,
        "single_rate": len(singles) / single_seconds,
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
        "store_rate": len(records) / store_seconds,
        "one_client": one_client,
        "bare": bare_app,
        "one_client_stored": one_client_stored,
    }


# -- the run ----------------------------------------------------------------------------------


def _phase(name: str, folder: Path, database_url: str) -> dict:
    command = [sys.executable, "-m", "bench.api", "--phase", name, "--folder", str(folder)]
    command += ["--database-url", database_url]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"phase {name} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=4_000)
    parser.add_argument("--artifacts", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--database-url",
        default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL),
        help=f"a PostgreSQL database the bench drops and creates (default {DEFAULT_DATABASE_URL})",
    )
    parser.add_argument("--phase", choices=["library", "ingest", "server"], help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.phase:
        records = _two_turn_records(args.folder)
        if args.phase == "library":
            row = phase_library(args.folder, records)
        else:
            _django(args.database_url, args.folder / "manifest.jsonl")
            phases = {"ingest": phase_ingest, "server": phase_server_setup}
            row = phases[args.phase](args.folder, records, args.database_url)
        print(json.dumps(row))
        return

    with tempfile.TemporaryDirectory(prefix="poimen-bench-api-") as tmp:
        folder = Path(tmp)
        print(f"writing {args.records:,} records and {args.artifacts:,} artifacts ...", flush=True)
        corpus = write_corpus(
            folder, n_records=args.records * 2, n_artifacts=args.artifacts, seed=args.seed
        )
        records = _two_turn_records(folder)
        mean = sum(len(r["text"].encode()) for r in records) / len(records)
        print("the library ...", flush=True)
        library = _phase("library", folder, args.database_url)
        print("ingest ...", flush=True)
        recreate_database(args.database_url)
        ingest = _phase("ingest", folder, args.database_url)
        print(f"the API (and the bare app): gunicorn, {WORKERS} workers ...", flush=True)
        recreate_database(args.database_url)
        server = _phase("server", folder, args.database_url)
        api = run_api(folder, records, args.database_url, server["token"], server["bare"])
        bare = api["bare"]

    library_rate = library["records"] / library["seconds"]
    ingest_rate = ingest["records"] / ingest["seconds"]
    print(
        f"\n{len(records):,} records (mean {mean:,.0f} bytes, {corpus['planted']:,} planted "
        f"turns), {args.artifacts:,} artifacts, PostgreSQL\n"
    )
    print(f"{'row':<46}{'records/s':>12}")
    print(f"{'library, check_many in batches of 100':<46}{library_rate:>12,.0f}")
    print(f"{'ingest command':<46}{ingest_rate:>12,.0f}")
    print(f"{'API, batches of 100, store false':<46}{api['batch_rate']:>12,.0f}")
    print(f"{'API, single records, store false':<46}{api['single_rate']:>12,.0f}")
    print(f"{'API, batches of 100, store true':<46}{api['store_rate']:>12,.0f}")
    print()
    print(f"batches of 100: {api['batch_rate'] / library_rate:.2f}x the library (target >= 0.8x)")
    (p50, p99), (stored50, stored99) = api["one_client"], api["one_client_stored"]
    print(
        f"one client, single records, store false: p50 {p50:.2f} ms, p99 {p99:.2f} ms; "
        f"the bare app: p50 {bare[0]:.2f} ms, p99 {bare[1]:.2f} ms -> {p50 / bare[0]:.2f}x, "
        f"{p99 / bare[1]:.2f}x (target p50 <= 2x, p99 <= 3x)"
    )
    print(
        f"one client, single records, store true: p50 {stored50:.2f} ms, p99 {stored99:.2f} ms "
        f"({stored50 / bare[0]:.2f}x, {stored99 / bare[1]:.2f}x the bare app)"
    )
    print(
        f"single records: p50 {api['p50_ms']:.1f} ms, p99 {api['p99_ms']:.1f} ms "
        "(target p99 <= 50 ms)"
    )
    print(f"store true: {api['store_rate'] / ingest_rate:.2f}x the ingest command (target >= 0.5x)")
    print(
        f"index refresh in a server process: loaded whole {ingest['refresh_full_ms']:.1f} ms; "
        f"after one artifact registered {ingest['refresh_added_ms']:.1f} ms; after a threshold "
        f"change {ingest['refresh_policy_ms']:.1f} ms"
    )
    print(
        f"derived (excluded or redacted): library {library['derived']:,}, "
        f"ingest {ingest['derived']:,}"
    )


if __name__ == "__main__":
    main()
