"""How the app's scans of every record are planned: the one home of the JIT setting, for the
selectors (the threshold preview's decision table) and the services (a threshold change) that
run the derived rule's SQL over all records."""

from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def without_jit():
    """Queries inside planned without PostgreSQL's JIT compilation. A scan of every record
    testing the derived rule's few dozen JSON comparisons is costed high enough for JIT to
    inline and optimise them all, which took longer than the scan itself before the first row
    was read at 10^6 records: reading rows, not evaluating them, is what
    such a scan waits on.

    `SET LOCAL` in a transaction of its own (a savepoint inside one already open, where the
    setting then holds to the end of the outer transaction)."""
    if connection.vendor != "postgresql":
        yield
        return
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL jit = off")
        yield
