"""The queue's side of bench/ingest.py: a private redis-server and real `celery -A poimen
worker` processes (one pool process each), so that a queued ingest is timed as an operator
would run it. The workers are started and ready before the clock starts; each builds its
index on its first batch, inside the timing, as the local run builds its own."""

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from bench.harness import peak_rss_mb, prepared_database

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def private_redis():
    """A redis-server of the bench's own on a free port; yields its URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="poimen-bench-redis-") as folder:
        server = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", folder,
             "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            for _ in range(100):
                with socket.socket() as client:
                    if client.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            server.terminate()
            server.wait(timeout=30)


def process_tree_cpu(pid: int) -> float:
    """CPU seconds so far of a process and every process under it (a celery worker and its
    pool process), from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    total, pids = 0.0, [pid]
    while pids:
        pid = pids.pop()
        try:
            # utime and stime: fields 14 and 15, counted after the command's closing bracket
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
            for task in Path(f"/proc/{pid}/task").iterdir():
                pids += [int(child) for child in (task / "children").read_text().split()]
        except FileNotFoundError:
            continue  # ended meanwhile
    return total


def redis_cpu(url: str) -> float:
    import redis

    info = redis.Redis.from_url(url).info("cpu")
    return info["used_cpu_user"] + info["used_cpu_sys"]


@contextmanager
def celery_workers(count: int, env: dict, log_folder: Path):
    """`count` workers of one pool process each, ready when this yields a function that
    says their CPU seconds so far."""
    started = []
    for number in range(count):
        log = log_folder / f"worker-{number}.log"
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "poimen", "worker", "--concurrency", "1",
             "--hostname", f"bench{number}@%h", "--without-mingle", "--without-gossip",
             "--loglevel", "INFO", "--logfile", str(log)],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        started.append((process, log))
    try:
        deadline = time.monotonic() + 120
        for process, log in started:
            while not (log.exists() and " ready." in log.read_text(errors="replace")):
                if process.poll() is not None or time.monotonic() > deadline:
                    sys.exit(f"a celery worker did not start; see {log}")
                time.sleep(0.1)
        yield lambda: sum(process_tree_cpu(process.pid) for process, _ in started)
    finally:
        for process, _ in started:
            os.killpg(process.pid, signal.SIGTERM)
        for process, _ in started:
            process.wait(timeout=60)


def phase_queued(folder: Path, records_file: Path, batch_size: int, workers: int) -> dict:
    """records_ingest_queued of the file with `workers` celery workers (CELERY_BROKER_URL set
    by the caller, the database freshly migrated and holding the artifacts)."""

    prepared_database(folder)
    from poimen.services import records_ingest_queued

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "poimen.settings"}
    broker = os.environ["CELERY_BROKER_URL"]
    with celery_workers(workers, env, folder) as workers_cpu:
        baseline = peak_rss_mb()
        cpu_started = time.process_time() + workers_cpu() + redis_cpu(broker)
        started = time.perf_counter()
        result = records_ingest_queued(paths=[records_file], batch_size=batch_size)
        seconds = time.perf_counter() - started
        # the command's, the workers' and the broker's CPU: every process but PostgreSQL's
        cpu_all = time.process_time() + workers_cpu() + redis_cpu(broker) - cpu_started
    assert result.errors == 0 and result.new == result.read, result.as_counts()
    return {
        "records": result.new,
        "seconds": seconds,
        "cpu_all_seconds": cpu_all,
        "derived": sum(result.excluded.values()) + sum(result.redacted.values()),
        "redacted": sum(result.redacted.values()),
        "baseline_mb": baseline,
    }
