"""Reads for a team's shared work: who holds which records, the review pool a reviewer is
served from, the next blind second review, the disagreements, and agreement (Cohen's kappa)."""

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Exists, Max, OuterRef, Q, QuerySet
from django.utils import timezone

from poimen.models import Claim, Record, SecondReview
from poimen.team import team_rules
from poimen.team.kappa import cohen_kappa, kappa_interval


def claims_shown(records: list[Record], user=None) -> "MyClaims | None":
    """Mark each record with `claimed_by` (the user name of whoever holds it now, or "") and
    `claimed_until`; and with `user`, what they hold (MyClaims). One query for a page of rows."""
    wanted = Q(record_id__in=[r.pk for r in records])
    if user is not None:
        wanted |= Q(reviewer=user)
    rows = list(
        Claim.objects.active()
        .filter(wanted)
        .values("record_id", "reviewer_id", "reviewer__username", "expires_at", "record__review_id")
    )
    held = {row["record_id"]: row for row in rows}
    for record in records:
        row = held.get(record.pk)
        record.claimed_by = row["reviewer__username"] if row else ""
        record.claimed_until = row["expires_at"] if row else None
    if user is None:
        return None
    mine = [row for row in rows if row["reviewer_id"] == user.pk]
    return MyClaims(
        count=len(mine),
        unreviewed=sum(1 for row in mine if row["record__review_id"] is None),
        until=min((row["expires_at"] for row in mine), default=None),
    )


@dataclass(frozen=True)
class MyClaims:
    count: int
    unreviewed: int
    until: datetime | None


def my_claims(user) -> MyClaims:
    """How many records `user` holds now, how many of them are still to judge, and until when."""
    return claims_shown([], user)


def review_pool(
    listed: QuerySet, user, *, mine_only: bool = False, counting: bool = False
) -> QuerySet:
    """The records of a list that review mode may serve `user`: none another reviewer holds;
    with `mine_only`, just the ones `user` holds (their claimed batch). With `counting`, the
    records its progress counts: a colleague's hold on the record they are reading (a
    moment's) does not take it out of the count, their claimed batch does."""
    now = timezone.now()
    if mine_only:
        mine = Claim.objects.active(now).filter(record=OuterRef("pk"), reviewer=user)
        return listed.filter(Exists(mine))
    others = Claim.objects.active(now).filter(record=OuterRef("pk")).exclude(reviewer=user)
    if counting:
        others = others.filter(hold=False)
    return listed.exclude(Exists(others))


@dataclass(frozen=True)
class ClaimHolder:
    username: str
    count: int
    unreviewed: int
    until: datetime


def claim_holders() -> list[ClaimHolder]:
    """Everyone who holds records now: how many, how many still unjudged, until when."""
    rows = (
        Claim.objects.active()
        .values("reviewer__username")
        .annotate(count=Count("pk"), until=Max("expires_at"))
        .order_by("reviewer__username")
    )
    unjudged = dict(
        Claim.objects.active()
        .filter(record__review__isnull=True)
        .values("reviewer__username")
        .annotate(n=Count("pk"))
        .values_list("reviewer__username", "n")
    )
    return [
        ClaimHolder(
            username=row["reviewer__username"],
            count=row["count"],
            unreviewed=unjudged.get(row["reviewer__username"], 0),
            until=row["until"],
        )
        for row in rows
    ]


# --- second reviews ----------------------------------------------------------------------------


def second_reviews_waiting(user) -> QuerySet:
    """Second reviews `user` may give: not yet given, the first verdict still standing and
    not their own; oldest first."""
    return (
        SecondReview.objects.filter(judged_at=None, first_review__withdrawn_at=None)
        .exclude(first_review__reviewer=user)
        .order_by("id")
    )


def second_review_next(user) -> SecondReview | None:
    return second_reviews_waiting(user).first()


def blind_record(record_id: int) -> Record:
    """A record as the blind second reviewer sees it (status as the filter left it)."""
    record = Record.objects.select_related("best_artifact", "run").get(pk=record_id)
    return team_rules.as_the_filter_left_it(record)


# --- disagreements and agreement -----------------------------------------------------------------


def _judged() -> QuerySet:
    return SecondReview.objects.filter(judged_at__isnull=False)


def disagreements(*, settled: bool = False) -> QuerySet:
    """Records whose two verdicts differ (copy or not), unsettled ones unless `settled`;
    newest first, with both reviewers and the record in the same query."""
    rows = _judged().filter(team_rules.disagreement_condition("first_review__verdict", "verdict"))
    rows = rows.filter(settled_at__isnull=not settled)
    rows = rows.select_related(
        "first_review__reviewer",
        "reviewer",
        "settled_by",
        "record__best_artifact",
        "record__review",
    )
    return rows.defer(
        "record__text",
        "record__metadata",
        "record__coverage",
        "record__evidence_text",
        "record__best_artifact__text",
        "record__best_artifact__shingles",
    ).order_by("-id")


# Under this many records with two verdicts, the desk says a kappa is too few to lean on.
AGREEMENT_TOO_FEW = 20


@dataclass(frozen=True)
class Agreement:
    """How two raters (or one and the rest) agree: on how many records, the share agreed, and
    Cohen's kappa (None where it is undefined)."""

    names: tuple[str, ...]
    records: int
    agreed: int
    kappa: float | None
    kappa_interval: tuple[float, float] | None = None

    @property
    def too_few(self) -> bool:
        """Fewer records than a kappa can be leaned on for (AGREEMENT_TOO_FEW)."""
        return self.records < AGREEMENT_TOO_FEW

    @property
    def share(self) -> float:
        return self.agreed / self.records if self.records else 0.0


def _agreement(names: tuple[str, ...], pairs: list[tuple[str, str]]) -> Agreement:
    return Agreement(
        names=names,
        records=len(pairs),
        agreed=sum(1 for a, b in pairs if a == b),
        kappa=cohen_kappa(pairs),
        kappa_interval=kappa_interval(pairs),
    )


def agreement() -> dict:
    """Agreement between the two verdicts of every judged second review, on copy or not:
    `pairs`, per pair of reviewers (rated in the order of their names); `reviewers`, each
    reviewer's verdicts against whoever gave the other one."""
    rows = _judged().values_list(
        "first_review__reviewer__username", "first_review__verdict", "reviewer__username", "verdict"
    )
    by_pair = defaultdict(list)
    by_reviewer = defaultdict(list)
    for first_name, first, second_name, second in rows.iterator(chunk_size=5000):
        first_name = first_name or "unknown"
        said = {first_name: team_rules.judgement(first), second_name: team_rules.judgement(second)}
        a, b = sorted((first_name, second_name))
        by_pair[(a, b)].append((said[a], said[b]))
        by_reviewer[first_name].append((said[first_name], said[second_name]))
        by_reviewer[second_name].append((said[second_name], said[first_name]))
    return {
        "pairs": [_agreement(names, pairs) for names, pairs in sorted(by_pair.items())],
        "reviewers": [_agreement((name,), pairs) for name, pairs in sorted(by_reviewer.items())],
    }


@dataclass(frozen=True)
class TeamCounts:
    waiting: int
    disagreements: int


def team_counts(user) -> TeamCounts:
    return TeamCounts(
        waiting=second_reviews_waiting(user).count(), disagreements=disagreements().count()
    )
