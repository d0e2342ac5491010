"""What several benches share: a PostgreSQL database made afresh, Django set up on a migrated one
holding a corpus's artifacts, and this process's peak memory and CPU time."""

import os
import resource
from pathlib import Path


def peak_rss_mb() -> float:
    """Peak resident memory of this process (VmHWM: unlike ru_maxrss, not inherited from the
    process that started it). Forked workers share the index copy-on-write; not counted."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # no /proc: an upper bound


def cpu_now() -> float:
    """CPU seconds of this process and of its children that ended (the forked checking
    processes of a local run, reaped when its pool closes)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def prepared_database(folder: Path) -> None:
    """Django set up on the phase's fresh database, migrated, holding the artifacts."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poimen.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from poimen.services import artifacts_import

    call_command("migrate", verbosity=0)
    imported = artifacts_import(path=folder / "artifacts", manifest=folder / "manifest.jsonl")
    assert imported.registered and not imported.problems, imported.problems


def recreate_database(url: str) -> None:
    """A fresh database for each ingest phase, so every record is new."""
    import psycopg

    from poimen.db.database_url import parse_database_url

    settings = parse_database_url(url, default_sqlite=Path("unused"))
    name = settings["NAME"]
    admin = psycopg.connect(
        host=settings["HOST"] or "127.0.0.1",
        port=settings["PORT"] or 5432,
        user=settings["USER"] or "postgres",
        password=settings["PASSWORD"] or None,
        dbname="postgres",
        autocommit=True,
    )
    with admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
