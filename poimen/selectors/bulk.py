"""What a bulk verdict acts on and overrides: a random sample of a filtered set when asked,
and the colleagues' verdicts in force on its records, told on the bulk page before it applies
(verdicts.overridden_condition is the rule)."""

from dataclasses import dataclass

from django.db.models import Count, F, QuerySet
from django.db.models.functions import Mod

from poimen.models import Record
from poimen.selectors.paging import first_rows
from poimen.team.verdicts import overridden_condition


@dataclass(frozen=True)
class ColleagueVerdicts:
    """`count` records carry a colleague's verdict; `by`: (reviewer, verdict in words, records),
    the most first."""

    count: int
    by: list[tuple[str, str, int]]


def colleague_verdicts(records: QuerySet, user) -> ColleagueVerdicts:
    """The colleagues' verdicts in force on `records` (any queryset of records), which a bulk
    verdict by `user` would override."""
    carrying = Record.objects.filter(pk__in=records.order_by().values("pk"))
    rows = (
        carrying.filter(overridden_condition(user))
        .values("review__reviewer__username", "review__verdict")
        .annotate(records=Count("pk"))
        .order_by("-records", "review__reviewer__username", "review__verdict")
    )
    by = [
        (
            row["review__reviewer__username"] or "a former reviewer",
            row["review__verdict"].replace("_", " "),  # "confirmed", "false positive"
            row["records"],
        )
        for row in rows
    ]
    return ColleagueVerdicts(count=sum(n for _, _, n in by), by=by)


# The sample sizes the bulk page offers, and the largest it takes.
SAMPLE_SIZES = (10, 25, 50, 100)
SAMPLE_MAX = 1000
# A sample's order: each id mixed by a multiplicative hash modulo a prime, then multiplied by
# an odd number made of the seed, modulo the prime again: a different permutation per seed, in
# plain 64-bit arithmetic (under 2^63 throughout), the same on PostgreSQL and SQLite, so the
# sample confirmed is the sample judged (the seed travels in the URL).
_MIX, _PRIME = 2654435761, 4294967291


def bulk_sample(records: QuerySet, *, size: int, seed: int) -> QuerySet:
    """A random sample of `size` of `records`, the same for the same seed while the set stands."""
    mixed = Mod(Mod(F("id") * _MIX, _PRIME) * (2 * seed + 1), _PRIME)
    ids = list(
        records.order_by()
        .annotate(mixed=mixed)
        .order_by("mixed", "id")
        .values_list("id", flat=True)[:size]
    )
    return Record.objects.filter(pk__in=ids)


# How many records of a filtered set the bulk page lists to choose from, and how many chosen
# ids one bulk verdict takes (they travel in the URL).
CHOOSE_SHOWN = 100
CHOSEN_MAX = 100


def bulk_choices(records: QuerySet, *, sort: str) -> list[Record]:
    """The first CHOOSE_SHOWN records of a filtered set in the list's order, to pick from."""
    return first_rows(records, sort=sort, size=CHOOSE_SHOWN)


def bulk_chosen(records: QuerySet, ids: list[int]) -> QuerySet:
    """The chosen records that are still in the filtered set (selected again on the server:
    one a colleague's verdict or a refilter took out of the set is not judged)."""
    return records.filter(pk__in=ids)
