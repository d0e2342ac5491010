"""The rules of a team's shared work, each once: how big a claim is and how long it holds,
which records are borderline, which share of them a second reviewer sees, and what two
verdicts on one record mean when they are compared.

The numbers come from settings (POIMEN_CLAIM_BATCH_SIZE, POIMEN_CLAIM_MINUTES, POIMEN_HOLD_MINUTES,
POIMEN_SECOND_REVIEW_SHARE, POIMEN_SECOND_REVIEW_BAND); everything else asks here.
"""

import copy
import hashlib
from datetime import timedelta
from functools import reduce
from itertools import product
from operator import or_

from django.conf import settings
from django.db.models import Q

from poimen.models import Record, Review

Verdict = Review.Verdict

# What a verdict says of a record, for comparing two reviewers: it is a copy to keep out, or
# it is not. A confirmation and a false negative both say "copy" (one of a record the filter
# excluded, one of a record it let through); a false positive says "not a copy".
COPY, NOT_COPY = "copy", "not a copy"
JUDGEMENTS = {
    Verdict.CONFIRMED: COPY,
    Verdict.FALSE_NEGATIVE: COPY,
    Verdict.FALSE_POSITIVE: NOT_COPY,
}


def claim_batch_size() -> int:
    return settings.POIMEN_CLAIM_BATCH_SIZE


def claim_duration() -> timedelta:
    return timedelta(minutes=settings.POIMEN_CLAIM_MINUTES)


def hold_duration() -> timedelta:
    """How long review mode holds the record it shows a reviewer."""
    return timedelta(minutes=settings.POIMEN_HOLD_MINUTES)


def second_review_band() -> float:
    return settings.POIMEN_SECOND_REVIEW_BAND


def second_review_share() -> float:
    return settings.POIMEN_SECOND_REVIEW_SHARE


def is_borderline(overlap: float, threshold: float) -> bool:
    """Within the band either side of the threshold: the cases two humans should see."""
    return abs(overlap - threshold) <= second_review_band()


def in_second_review_share(record_id: int) -> bool:
    """Whether a borderline record is one of the share sent to a second reviewer. Decided by a
    hash of the record's id, not a coin: the same record always gets the same answer, and the
    share holds over any run of records."""
    digest = hashlib.sha256(f"second-review:{record_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < second_review_share()


def judgement(verdict: str) -> str:
    """copy or not a copy: what two verdicts are compared on."""
    return JUDGEMENTS[Verdict(verdict)]


def disagree(first: str, second: str) -> bool:
    return judgement(first) != judgement(second)


def disagreement_condition(first: str, second: str) -> Q:
    """The SQL form of `disagree`, over the fields `first` and `second` hold the two
    verdicts in: built from JUDGEMENTS, so the two forms cannot drift apart."""
    verdicts_of = {}
    for verdict, said in JUDGEMENTS.items():
        verdicts_of.setdefault(said, []).append(verdict.value)
    return reduce(
        or_,
        (
            Q(**{f"{first}__in": verdicts_of[a], f"{second}__in": verdicts_of[b]})
            for a, b in product(verdicts_of, repeat=2)
            if a != b
        ),
    )


def as_the_filter_left_it(record: Record) -> Record:
    """A copy of `record` (never saved) with the filter's own decision as its status and no
    verdict in force: what a blind second reviewer is shown, and what their verdict must fit.
    The status in force would give the first verdict away (a release makes it evidence)."""
    blind = copy.copy(record)
    blind._state = copy.copy(record._state)
    blind._state.fields_cache = dict(record._state.fields_cache)
    blind.status = record.filter_status
    blind.review = None
    return blind
