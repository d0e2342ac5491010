"""What the audit chain costs on PostgreSQL: a transaction writing N events (a threshold
change, a refilter) with the seal trigger chaining them at commit, against the same insert
with the seal trigger off (rolled back). Run on a migrated scratch database:

    DATABASE_URL=postgres://…/poimen_bench python -m bench.audit_seal [N]

It prints both times and their ratio (3 rounds each, the best); the events it writes stay in
the database's audit log, chained.
"""

import os
import sys
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poimen.settings")

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402

from poimen.models import Event  # noqa: E402


def events(n: int) -> list[Event]:
    data = {"from": "evidence", "to": "excluded", "overlap": 0.93, "threshold": 0.8}
    return [
        Event.objects.log("status_changed", data={**data, "i": i}, save=False) for i in range(n)
    ]


def sealed(n: int) -> float:
    batch = events(n)
    started = time.perf_counter()
    with transaction.atomic():
        Event.objects.log_many(batch)
    return time.perf_counter() - started


class _RolledBack(Exception):
    pass


def unsealed(n: int) -> float:
    """The same insert with the seal trigger off, in a transaction rolled back after (so the
    log keeps no unchained event; it needs the table's owner)."""
    batch = events(n)
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("ALTER TABLE poimen_event DISABLE TRIGGER poimen_event_seal")
            started = time.perf_counter()
            Event.objects.log_many(batch)
            with connection.cursor() as cursor:
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the FK checks of a commit
            took = time.perf_counter() - started
            raise _RolledBack
    except _RolledBack:
        return took


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    if connection.vendor != "postgresql":
        sys.exit("bench.audit_seal measures PostgreSQL's seal trigger: DATABASE_URL=postgres://…")
    with_seal = min(sealed(n) for _ in range(3))
    without = min(unsealed(n) for _ in range(3))
    print(
        f"{n:,} events in one transaction: sealed {with_seal:.2f} s, unsealed "
        f"{without:.2f} s ({with_seal / without:.1f}x)"
    )


if __name__ == "__main__":
    main()
