"""What the desk's reads share: page sizes, snippet lengths, the verdict filter's values, how
a day given in a filter becomes a time."""

from datetime import date, datetime, time

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
