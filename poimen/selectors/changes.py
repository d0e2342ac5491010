"""What the overview opens on: what changed since the reviewer last looked, what waits for
them, the exclusions over time by kind, and the last result of each check."""

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db.models import Count, Q
from django.db.models.functions import TruncDate
from django.utils import timezone

from poimen.models import Event
from poimen.selectors.cache import cached
from poimen.selectors.team import disagreements, my_claims, second_reviews_waiting

# A first visit (no "last looked" yet) is told of the past week.
FIRST_VISIT_SPAN = timedelta(days=7)
# How many of the changes that move many records (threshold and policy changes, bulk
# verdicts) are listed one by one; the rest are counted.
LISTED = 5

Type = Event.Type
VERDICT_TYPES = (Type.REVIEW_CONFIRMED, Type.REVIEW_FALSE_POSITIVE, Type.REVIEW_FALSE_NEGATIVE)
# The lines of "what changed", in this order: (label, the event types counted, a filter of
# the audit log that lists them).
CHANGE_LINES = (
    (
        ("threshold or policy change", "threshold or policy changes"),
        (Type.THRESHOLD_CHANGED, Type.POLICY_CHANGED),
        "",
    ),
    (
        ("record the filter excluded or redacted", "records the filter excluded or redacted"),
        (Type.DERIVED_EXCLUDED, Type.DERIVED_REDACTED),
        "",
    ),
    (
        (
            "record a change or a refilter moved otherwise",
            "records a change or a refilter moved otherwise",
        ),
        (Type.STATUS_CHANGED,),
        "status_changed",
    ),
    (("verdict by colleagues", "verdicts by colleagues"), VERDICT_TYPES, ""),
    (("bulk verdict", "bulk verdicts"), (Type.REVIEW_BULK,), "review_bulk"),
    (
        ("bulk verdict undone", "bulk verdicts undone"),
        (Type.REVIEW_BULK_UNDONE,),
        "review_bulk_undone",
    ),
    (("second verdict", "second verdicts"), (Type.SECOND_REVIEW_GIVEN,), "second_review_given"),
    (("claim taken", "claims taken"), (Type.RECORDS_CLAIMED,), "records_claimed"),
    (
        ("run with the filter off", "runs with the filter off"),
        (Type.FILTER_DISABLED,),
        "filter_disabled",
    ),
)
# The two checks an operator runs, each writing one event with its result.
CHECKS = (
    ("derived_verified", "Derived filter (verify_derived)"),
    ("audit_verified", "Audit log (verify_audit)"),
)


@dataclass(frozen=True)
class ChangeLine:
    words: tuple[str, str]  # what is counted, one and many
    count: int
    audit_type: str  # the audit log's type filter that lists them, "" for several types

    @property
    def label(self) -> str:
        return self.words[self.count != 1]


@dataclass(frozen=True)
class Changes:
    since: datetime
    first_visit: bool
    lines: list[ChangeLine]
    policy_changes: list[Event]  # the newest LISTED threshold and policy changes
    bulks: list[Event]  # the newest LISTED bulk verdicts
    new_disagreements: int

    @property
    def anything(self) -> bool:
        return any(line.count for line in self.lines) or bool(self.new_disagreements)


def changes_since(since: datetime | None, user) -> Changes:
    """What happened since `since` (the past week when None), the user's own verdicts aside."""
    first_visit = since is None
    since = since or timezone.now() - FIRST_VISIT_SPAN
    recent = Event.objects.filter(created_at__gt=since)
    mine = Q(type__in=VERDICT_TYPES, actor=user)
    counted = dict(
        recent.exclude(mine)
        .values("type")
        .annotate(n=Count("id"))
        .order_by()
        .values_list("type", "n")
    )
    lines = [
        ChangeLine(words, sum(counted.get(t, 0) for t in types), audit_type)
        for words, types, audit_type in CHANGE_LINES
    ]
    policy = recent.filter(type__in=(Type.THRESHOLD_CHANGED, Type.POLICY_CHANGED))
    bulks = recent.filter(type=Type.REVIEW_BULK)
    new_disagreements = disagreements().filter(judged_at__gt=since).count()
    return Changes(
        since=since,
        first_visit=first_visit,
        lines=lines,
        policy_changes=list(policy.select_related("actor").order_by("-id")[:LISTED]),
        bulks=list(bulks.select_related("actor").order_by("-id")[:LISTED]),
        new_disagreements=new_disagreements,
    )


@dataclass(frozen=True)
class Waiting:
    """What waits for a reviewer: their claimed records still to judge, second reviews they
    may give, disagreements to settle."""

    claimed: int
    claimed_until: datetime | None
    second_reviews: int
    disagreements: int


def waiting_for(user) -> Waiting:
    claims = my_claims(user)
    return Waiting(
        claimed=claims.unreviewed,
        claimed_until=claims.until,
        second_reviews=second_reviews_waiting(user).count(),
        disagreements=disagreements().count(),
    )


@dataclass(frozen=True)
class CheckResult:
    name: str
    label: str
    event: Event | None  # the newest, None: never run

    @property
    def ok(self) -> bool | None:
        return None if self.event is None else bool(self.event.data.get("ok"))


def last_checks() -> list[CheckResult]:
    """The newest result of each check (derived_verified, audit_verified), or never run."""
    results = []
    for name, label in CHECKS:
        event = Event.objects.filter(type=name).order_by("-id").first()
        results.append(CheckResult(name=name, label=label, event=event))
    return results


@dataclass(frozen=True)
class KindSeries:
    kind: str
    counts: list[int]  # one a day, oldest first


@dataclass(frozen=True)
class ExclusionsOverTime:
    days: list[date]
    series: list[KindSeries] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(sum(s.counts) for s in self.series)


def _exclusions_over_time(days: int, today: date) -> ExclusionsOverTime:
    first = today - timedelta(days=days - 1)
    start = timezone.make_aware(datetime.combine(first, datetime.min.time()))
    rows = (
        Event.objects.filter(
            type__in=(Type.DERIVED_EXCLUDED, Type.DERIVED_REDACTED), created_at__gte=start
        )
        .annotate(day=TruncDate("created_at"))
        .values("kind", "day")
        .annotate(n=Count("id"))
        .order_by()
    )
    span = [first + timedelta(days=n) for n in range(days)]
    index = {day: n for n, day in enumerate(span)}
    by_kind: dict[str, list[int]] = {}
    for row in rows:
        counts = by_kind.setdefault(row["kind"] or "(no kind)", [0] * days)
        if row["day"] in index:
            counts[index[row["day"]]] += row["n"]
    series = [KindSeries(kind, counts) for kind, counts in sorted(by_kind.items())]
    return ExclusionsOverTime(days=span, series=series)


def exclusions_over_time(days: int = 30) -> ExclusionsOverTime:
    """Records excluded or redacted (their derived_* events) a day, by kind, over `days` days
    to today; kept while the data stands."""
    return cached("exclusions_over_time", _exclusions_over_time, days, timezone.localdate())
