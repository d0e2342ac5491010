"""How good the filter is at each threshold, as the reviewers' verdicts tell it: estimated
precision and recall of one kind's threshold, and the judged records a new threshold would
flip.

What a verdict says. A confirmation and a false negative say "a copy"; a false positive says
"not a copy". Only the verdict in force on a record counts (an undone one never does), and only
on the records one kind's threshold can decide (its DecisionTable).

What the filter says at a threshold t is the rule's own answer, `DecisionTable.derived_at(t)`,
never a comparison written here. Then, over the judged records,

    precision(t) = copies it derives / records it derives
    recall(t)    = copies it derives / copies

The judged records are not a fair sample: reviewers work through the exclusions, and a near
miss gets a verdict only when a reviewer finds a copy in it (the desk offers no verdict for
"rightly evidence"), so counting verdicts as they come would make the filter look better
than it is. Two corrections, and what is left:

- Records the filter derives now: both answers can be given, so the judged ones stand for the
  rest of their overlap band (0.05 wide, the histogram's bins), each weighted by
  (records in its band) / (judged records in its band): post-stratification. A band no
  reviewer reached is left out and counted (`not_estimated`).
- Records the filter leaves as evidence now (near misses): a judged one counts once, as it is,
  never scaled up, since the absence of a verdict there says nothing. So the missed copies are
  at least those reviewers marked, and recall is an upper bound ("at most").
- At a threshold under today's, the near misses it would newly derive have no answer unless a
  reviewer marked them a copy: precision there is over the judged ones, and the rest are
  counted (`unjudged`).

Each estimate says how many verdicts it rests on and carries an approximate 95% Wilson
interval, with the weighted sample's effective size (Kish: (sum w)^2 / sum w^2) as its n.
"""

import math
from dataclasses import dataclass

import numpy as np

from poimen.decision.policies import Policies, report_floor
from poimen.models import Record
from poimen.selectors.cache import decision_version, kept_in_process
from poimen.selectors.tuning import HISTOGRAM_BINS, VERDICT_CODES, DecisionTable, decision_table
from poimen.team.team_rules import COPY, JUDGEMENTS, NOT_COPY

# Wilson's z for a 95% interval.
Z = 1.96
# Under this many verdicts bearing on a value, the desk says in words that it is too few to
# lean on (the interval shows how wide; the sentence says what to do).
TOO_FEW = 10
# The judged records a flip list shows (each list says how many there are in all).
FLIP_LIST_LIMIT = 50


def _codes(*verdicts) -> list[int]:
    return [VERDICT_CODES[v] for v in verdicts]


# What each verdict says of the record, a copy or not a copy: the team's one rule
# (team_rules.JUDGEMENTS, what two reviewers' verdicts are compared on).
COPY_CODES = _codes(*(v for v, said in JUDGEMENTS.items() if said == COPY))
NOT_COPY_CODES = _codes(*(v for v, said in JUDGEMENTS.items() if said == NOT_COPY))


@dataclass(frozen=True)
class Estimate:
    """A share with the number of verdicts it rests on and a 95% interval; value None when no
    verdict bears on it."""

    value: float | None
    low: float | None
    high: float | None
    reviews: int

    @property
    def too_few(self) -> bool:
        """Some verdicts bear on it, fewer than TOO_FEW."""
        return self.value is not None and self.reviews < TOO_FEW


@dataclass(frozen=True)
class ThresholdEstimate:
    threshold: float
    precision: Estimate
    recall: Estimate
    # Records the filter would derive at this threshold that are near misses now with no
    # verdict: precision leaves them out.
    unjudged: int


@dataclass(frozen=True)
class Estimates:
    kind: str
    current: float
    rows: list[ThresholdEstimate]
    judged: int
    # Records derived now in overlap bands with no verdict: outside every estimate.
    not_estimated: int

    @property
    def too_few(self) -> int:
        """TOO_FEW, when some value of the table rests on fewer verdicts; else 0."""
        thin = any(r.precision.too_few or r.recall.too_few for r in self.rows)
        return TOO_FEW if thin else 0


def wilson(share: float, n: float) -> tuple[float, float]:
    """Wilson's 95% score interval for a share observed on `n` (possibly effective) trials."""
    if n <= 0:
        return 0.0, 1.0
    denominator = 1 + Z * Z / n
    centre = (share + Z * Z / (2 * n)) / denominator
    half = Z * math.sqrt(share * (1 - share) / n + Z * Z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def _share(hits: np.ndarray, weights: np.ndarray) -> Estimate:
    """The weighted share of `hits` among the judged records `weights` stands for."""
    reviews = len(weights)
    total = float(weights.sum())
    if not reviews or total <= 0:
        return Estimate(None, None, None, reviews)
    share = float(weights[hits].sum()) / total
    effective = total * total / float((weights * weights).sum())
    low, high = wilson(share, effective)
    return Estimate(share, low, high, reviews)


@dataclass(frozen=True)
class _Strata:
    """Per record of a table: the band of the score the rule compares with the threshold, and
    how many records the filter derives now in each band."""

    score: np.ndarray
    band: np.ndarray
    derived_per_band: np.ndarray


def _strata(table: DecisionTable) -> _Strata:
    score = np.zeros(len(table.ids))
    if len(table.match_record):
        np.maximum.at(score, table.match_record, table.match_overlap)
    # the highest figure the rule compares with a threshold: a match, the kind's coverage, or
    # the coverage of several kinds together
    score = np.maximum(np.maximum(score, table.coverage), table.mixed_coverage)
    band = np.clip((score * HISTOGRAM_BINS).astype(np.int64), 0, HISTOGRAM_BINS - 1)
    derived_per_band = np.bincount(band[table.derived], minlength=HISTOGRAM_BINS)
    return _Strata(score=score, band=band, derived_per_band=derived_per_band)


def grid_thresholds(floor: float) -> list[float]:
    """The thresholds the estimates are given at: the histogram's bin edges from the reporting
    floor up to 0.95 (over 0.95 the kind derives only exact copies, at 1.0 nothing)."""
    edges = [round(k / HISTOGRAM_BINS, 4) for k in range(HISTOGRAM_BINS)]
    return [edge for edge in edges if edge >= floor - 1e-9]


@dataclass(frozen=True)
class _Grid:
    key: str
    thresholds: list[float]
    derived: np.ndarray  # (thresholds, records): the rule's decision at each
    # per threshold: the records it derives that the filter does not derive now
    newly_derived: np.ndarray
    strata: _Strata

    def at(self, table: DecisionTable, value: float) -> tuple[np.ndarray, int]:
        """The rule's decision on every record at `value`, and how many it newly derives:
        a grid row, or asked once per value while the decisions stand (the preview's
        estimate and its flips share it)."""
        if value in self.thresholds:
            row = self.thresholds.index(value)
            return self.derived[row], int(self.newly_derived[row])

        def decide():
            derived = table.derived_at(value)
            return derived, int(np.count_nonzero(derived & ~table.derived))

        return kept_in_process("estimate_at", f"{self.key}:{value!r}", decide)


def _grid(key: str, table: DecisionTable) -> _Grid:
    thresholds = grid_thresholds(report_floor())
    derived = np.zeros((len(thresholds), len(table.ids)), dtype=bool)
    for row, threshold in enumerate(thresholds):
        derived[row] = table.derived_at(threshold)
    newly = np.count_nonzero(derived & ~table.derived, axis=1)
    return _Grid(
        key=key, thresholds=thresholds, derived=derived, newly_derived=newly, strata=_strata(table)
    )


def _kind_grid(kind: str) -> tuple[DecisionTable, np.ndarray, _Grid]:
    """The table, its verdicts and the rule's decisions at every grid threshold, kept in the
    process while the filter's decisions stand (the verdicts are read again on any change)."""
    table, verdicts = decision_table(kind)
    key = f"{kind}:{decision_version()}"
    grid = kept_in_process("estimate_grid", key, lambda: _grid(key, table))
    return table, verdicts, grid


@dataclass(frozen=True)
class _Judged:
    positions: np.ndarray  # into the table
    copy: np.ndarray
    weight: np.ndarray
    derived_now: np.ndarray


def _judged(table: DecisionTable, verdicts: np.ndarray, strata: _Strata) -> _Judged:
    positions = np.flatnonzero(verdicts)  # 0: no verdict; every verdict is one or the other
    copy = np.isin(verdicts[positions], COPY_CODES)
    derived_now = table.derived[positions]
    band = strata.band[positions]
    judged_per_band = np.bincount(band[derived_now], minlength=HISTOGRAM_BINS)
    weight = np.ones(len(positions))
    scaled = derived_now & (judged_per_band[band] > 0)
    weight[scaled] = strata.derived_per_band[band[scaled]] / judged_per_band[band[scaled]]
    return _Judged(positions=positions, copy=copy, weight=weight, derived_now=derived_now)


def _estimate_at(decided: tuple[np.ndarray, int], judged: _Judged, t: float) -> ThresholdEstimate:
    """`decided`: the rule's decision on every record of the table at `t`, and how many of
    them it newly derives."""
    derived, newly = decided
    at = derived[judged.positions]
    precision = _share(judged.copy[at], judged.weight[at])
    recall = _share(at[judged.copy], judged.weight[judged.copy])
    unjudged = newly - int(np.count_nonzero(at & ~judged.derived_now))
    return ThresholdEstimate(threshold=t, precision=precision, recall=recall, unjudged=unjudged)


def threshold_estimates(kind: str, *, also: tuple[float, ...] = ()) -> Estimates:
    """Precision and recall of `kind`'s filter at each grid threshold (see the module's
    docstring for what they are and how the reviewers' sample is corrected), and at the
    thresholds `also` (today's, a previewed value), in threshold order."""
    table, verdicts, grid = _kind_grid(kind)
    judged = _judged(table, verdicts, grid.strata)
    rows = {t: _estimate_at(grid.at(table, t), judged, t) for t in [*grid.thresholds, *also]}
    judged_bands = np.bincount(
        grid.strata.band[judged.positions[judged.derived_now]], minlength=HISTOGRAM_BINS
    )
    not_estimated = int(grid.strata.derived_per_band[judged_bands == 0].sum())
    return Estimates(
        kind=kind,
        current=Policies.load().threshold_for(kind),
        rows=[rows[t] for t in sorted(rows)],
        judged=len(judged.positions),
        not_estimated=not_estimated,
    )


@dataclass(frozen=True)
class FlippedRecord:
    record_id: int
    verdict: str
    # the filter's decision now and at the previewed value
    derived_now: bool
    derived_then: bool
    score: float
    artifact: str


@dataclass(frozen=True)
class Flips:
    """The judged records whose filter decision a threshold would change: those it would turn
    against the reviewer's verdict, and those it would bring in line with it (each list up to
    FLIP_LIST_LIMIT, closest to the threshold first; the totals count them all)."""

    value: float
    against: list[FlippedRecord]
    in_line: list[FlippedRecord]
    against_total: int
    in_line_total: int

    @property
    def groups(self) -> list[tuple[str, int, list[FlippedRecord]]]:
        return [
            ("against", self.against_total, self.against),
            ("in_line", self.in_line_total, self.in_line),
        ]


def _flipped_positions(
    table: DecisionTable, verdicts: np.ndarray, then: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Table positions of the judged records whose decision `then` (the rule's at a new
    threshold) would turn against their verdict, and of those it would bring in line with it."""
    copy = np.isin(verdicts, COPY_CODES)
    judged = np.isin(verdicts, COPY_CODES + NOT_COPY_CODES)
    changed = judged & (then != table.derived)
    return np.flatnonzero(changed & (then != copy)), np.flatnonzero(changed & (then == copy))


def threshold_flips(kind: str, value: float) -> Flips:
    table, verdicts, grid = _kind_grid(kind)
    against, in_line = _flipped_positions(table, verdicts, grid.at(table, value)[0])
    score = grid.strata.score

    def listed(positions: np.ndarray) -> list[FlippedRecord]:
        closest = positions[np.argsort(np.abs(score[positions] - value), kind="stable")]
        closest = closest[:FLIP_LIST_LIMIT]
        ids = table.ids[closest].tolist()
        records = Record.objects.filter(pk__in=ids).select_related("review", "best_artifact")
        by_id = {r.pk: r for r in records.only("id", "review__verdict", "best_artifact__name")}
        return [
            FlippedRecord(
                record_id=pk,
                verdict=by_id[pk].review.verdict,
                derived_now=bool(table.derived[p]),
                derived_then=not bool(table.derived[p]),
                score=float(score[p]),
                artifact=by_id[pk].best_artifact.name if by_id[pk].best_artifact else "",
            )
            for pk, p in zip(ids, closest.tolist(), strict=True)
            if pk in by_id and by_id[pk].review
        ]

    return Flips(
        value=value,
        against=listed(against),
        in_line=listed(in_line),
        against_total=len(against),
        in_line_total=len(in_line),
    )
