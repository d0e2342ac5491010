"""What the desk's reads share: page sizes, snippet lengths, the verdict filter's values, how
a day given in a filter becomes a time, and scans planned without JIT."""

from contextlib import contextmanager
from datetime import date, datetime, time

from django.db import connection, transaction
from django.utils import timezone

from poimen.models import Review

PAGE_SIZE = 50
# Counts stop here ("more than 1,000"): the tables may hold millions of rows.
COUNT_CAP = 1000
SNIPPET_CHARS = 240
# A search's snippet starts this many characters before the first hit.
SNIPPET_LEAD = 60
UNREVIEWED = "unreviewed"
# The states a record's review can be in, in the order the desk shows them.
VERDICTS = [
    UNREVIEWED,
    Review.Verdict.CONFIRMED,
    Review.Verdict.FALSE_POSITIVE,
    Review.Verdict.FALSE_NEGATIVE,
]


def day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min), timezone.get_current_timezone())


@contextmanager
def without_jit():
    """Queries inside planned without PostgreSQL's JIT compilation. A scan of every record
    testing the derived rule's few dozen JSON comparisons is costed high enough for JIT to
    inline and optimise them all, which took 3-4 s before the first row was read at 10^6
    records (the scan itself about as long again): reading rows, not evaluating them, is what
    such a scan waits on."""
    if connection.vendor != "postgresql":
        yield
        return
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL jit = off")
        yield
