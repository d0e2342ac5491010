"""What a bulk verdict would override: the colleagues' verdicts in force on its records,
told on the bulk page before it applies (verdicts.overridden_condition is the rule)."""

from dataclasses import dataclass

from django.db.models import Count, QuerySet

from poimen.models import Record
from poimen.verdicts import overridden_condition


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
