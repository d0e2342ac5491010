"""Threshold tuning: the overlap histogram of a kind and what a new threshold would do.

A preview evaluates the derived rule (poimen.decision.derived_rule, from filter.decision) on arrays
of the kind's stored matches and coverage, so it answers as a threshold change would apply it.
"""

import json
from dataclasses import dataclass

import numpy as np
from django.db import connection
from django.db.models import (
    BooleanField,
    Case,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    FloatField,
    OuterRef,
    Q,
    When,
)
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Floor

from filter.decision import across_kinds_in_force
from poimen.db.planning import without_jit
from poimen.decision.derived_rule import (
    derived_by_rows,
    derived_condition,
    without_kind,
)
from poimen.decision.policies import Policies
from poimen.models import Artifact, Event, Match, Record, ThresholdChange
from poimen.selectors.cache import cached, data_version, decision_version, kept_in_process
from poimen.selectors.common import UNREVIEWED, VERDICTS
from poimen.selectors.kinds import kinds_known

HISTOGRAM_BINS = 20


@dataclass
class Histogram:
    kind: str
    bins: int
    # counts[verdict][bin]
    counts: dict[str, list[int]]

    @property
    def totals(self) -> list[int]:
        return [sum(self.counts[v][i] for v in VERDICTS) for i in range(self.bins)]


def _binned(matches, *fields: str) -> list[dict]:
    return list(
        matches.annotate(bin=Cast(Floor(F("overlap") * HISTOGRAM_BINS), FloatField()))
        .values("bin", *fields)
        .annotate(n=Count("id"))
        .order_by()
    )


def _overlap_histogram(kind: str) -> Histogram:
    """All matches of the kind binned once while the matches stand (overlaps change only with
    ingest or refilter); the judged records' matches binned by verdict on each change."""
    matches = Match.objects.filter(artifact__kind=kind)
    everything = cached("binned", lambda _: _binned(matches), kind, version=decision_version)
    counts = {verdict: [0] * HISTOGRAM_BINS for verdict in VERDICTS}

    def index(row) -> int:
        return min(max(int(row["bin"]), 0), HISTOGRAM_BINS - 1)

    for row in everything:
        counts[UNREVIEWED][index(row)] += row["n"]
    for row in _binned(matches.filter(record__review__isnull=False), "record__review__verdict"):
        counts[row["record__review__verdict"]][index(row)] += row["n"]
        counts[UNREVIEWED][index(row)] -= row["n"]
    return Histogram(kind=kind, bins=HISTOGRAM_BINS, counts=counts)


def overlap_histogram(kind: str) -> Histogram:
    """Stored matches of a kind by overlap (20 bins of 0.05), stacked by the verdict in force
    on their record. Cached until the data changes."""
    return cached("histogram", _overlap_histogram, kind)


@dataclass
class PreviewSample:
    record_id: int
    match_id: int
    artifact: str
    overlap: float
    status: str
    verdict: str | None
    would_exceed: bool


@dataclass
class ThresholdPreview:
    """What a threshold change would do: the dry run of the change itself (services.
    threshold_change(dry_run=True): the same decisions, nothing written), and matches on
    either side of the value for a look."""

    kind: str
    value: float
    current: float
    newly_excluded: int
    newly_released: int
    newly_redacted: int
    kept_by_review: int
    flagged: dict[str, int]  # the records held by reviewers' verdicts, by verdict
    moves: list[tuple[str, str, int]]  # (from, to, how many)
    sample: list[PreviewSample]

    @property
    def flagged_total(self) -> int:
        return self.kept_by_review


VERDICT_CODES = {None: 0, **{v: n for n, v in enumerate(VERDICTS[1:], start=1)}}


@dataclass(frozen=True)
class DecisionTable:
    """What the rule needs to decide, for every record that a `kind` threshold can decide
    (sorted by id): the kind's stored matches (record position, overlap, shared), each record's
    coverage by several of the kind's artifacts, its coverage across kinds where that involves
    the kind (with the highest threshold and min_shared of the other kinds involved), whether
    another kind keeps it derived whatever this threshold, and the filter's decision now. A
    preview is then arithmetic on arrays."""

    kind: str
    min_shared: int
    ids: np.ndarray
    derived: np.ndarray
    held_by_other: np.ndarray
    match_record: np.ndarray
    match_overlap: np.ndarray
    match_shared: np.ndarray
    coverage: np.ndarray
    coverage_artifacts: np.ndarray
    coverage_shared: np.ndarray
    mixed_coverage: np.ndarray
    mixed_kinds: np.ndarray
    mixed_shared: np.ndarray
    mixed_threshold_others: np.ndarray
    mixed_min_shared_others: np.ndarray

    def derived_at(self, threshold: float) -> np.ndarray:
        """The filter's decision on each record were the kind's threshold `threshold`."""
        return self.held_by_other | derived_by_rows(
            match_record=self.match_record,
            match_overlap=self.match_overlap,
            match_shared=self.match_shared,
            coverage=self.coverage,
            coverage_artifacts=self.coverage_artifacts,
            coverage_shared=self.coverage_shared,
            threshold=threshold,
            min_shared=self.min_shared,
            mixed_coverage=self.mixed_coverage,
            mixed_kinds=self.mixed_kinds,
            mixed_shared=self.mixed_shared,
            mixed_threshold_others=self.mixed_threshold_others,
            mixed_min_shared_others=self.mixed_min_shared_others,
        )


def _columns(rows: list[tuple], width: int) -> np.ndarray:
    return np.array(rows, dtype=float).reshape(-1, width)


def _decision_table(kind: str) -> DecisionTable:
    policies = Policies.load()
    kind_ids = list(Artifact.objects.filter(kind=kind).values_list("id", flat=True))
    kind_matches = Match.objects.filter(artifact_id__in=kind_ids)
    matches = _columns(
        list(kind_matches.values_list("record_id", "overlap", "shared").order_by()), 3
    )
    # Every record a threshold of the kind can decide, read in one pass over the records (a
    # scan of the whole table, its rows too wide to cache: one, not one per half of the
    # rule): its decision now, what keeps it derived whatever this kind's threshold (the rule
    # with the kind unable to decide: another kind's match or coverage, or coverage across
    # other kinds), its coverage by several of the kind's artifacts, its coverage across kinds.
    # Held too: what the filter cut for a pasted passage (derived, though the rule's clauses
    # do not say so at today's thresholds): it stays cut whatever the threshold.
    held = derived_condition(without_kind(policies, kind), kinds_known()) | (
        Q(derived=True) & ~derived_condition(policies, kinds_known())
    )
    decidable = (
        Record.objects.filter(
            Exists(kind_matches.filter(record=OuterRef("pk")))
            | Q(coverage__has_key=kind)
            | Q(mixed_coverage__kinds__has_key=kind)
        )
        .annotate(
            held=ExpressionWrapper(held, output_field=BooleanField()),
            # As numbers in SQL: JSON values decoded one by one cost seconds at 10^6 records.
            **{name: _number(path) for name, path in _coverage_columns(kind).items()},
            mixed_kinds=Case(
                When(mixed_coverage__kinds__has_key=kind, then=F("mixed_coverage__kinds"))
            ),
        )
        .values_list("id", "derived", "held", *_coverage_columns(kind), "mixed_kinds")
        .order_by()  # sorted by id here: in SQL, a walk of the primary key's index
    )
    # Read with a cursor of its own, and made numbers column by column: Django's converters,
    # value by value, cost seconds on a kind's records at 10^6.
    sql, params = decidable.query.sql_with_params()
    with without_jit(), connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = np.array(cursor.fetchall(), dtype=object).reshape(-1, 10)
    rows = rows[np.argsort(rows[:, 0].astype(np.int64), kind="stable")]
    # NULL where a record has no such coverage: 0; and where held meets a missing key in the
    # rule's comparisons: not held, as in a filter.
    columns = np.where(rows[:, :9] == None, 0, rows[:, :9]).astype(float).T  # noqa: E711
    ids = columns[0].astype(np.int64)
    # Coverage across kinds counts where it involves the kind (its kinds are there), at the
    # highest threshold and min_shared of the other kinds involved.
    involved = np.flatnonzero(rows[:, 9] != None)  # noqa: E711
    across = np.zeros((5, len(ids)))
    across[:3, involved] = columns[6:9, involved]
    for at in involved:
        kinds = json.loads(rows[at, 9]) if isinstance(rows[at, 9], str) else rows[at, 9]
        across[3:, at] = across_kinds_in_force(policies, set(kinds) - {kind})
    match_ids = matches[:, 0].astype(np.int64)
    # A match stored since the records were read (an ingest under way) waits for the next
    # table: the decision version it brings builds one.
    match_record = np.minimum(np.searchsorted(ids, match_ids), max(len(ids) - 1, 0))
    known = ids[match_record] == match_ids if len(ids) else np.zeros(len(match_ids), dtype=bool)

    return DecisionTable(
        kind=kind,
        min_shared=policies.min_shared_for(kind),
        ids=ids,
        derived=columns[1].astype(bool),
        held_by_other=columns[2].astype(bool),
        match_record=match_record[known],
        match_overlap=matches[known, 1],
        match_shared=matches[known, 2],
        coverage=columns[3],
        coverage_artifacts=columns[4],
        coverage_shared=columns[5],
        mixed_coverage=across[0],
        mixed_kinds=across[1],
        mixed_shared=across[2],
        mixed_threshold_others=across[3],
        mixed_min_shared_others=across[4],
    )


def _coverage_columns(kind: str) -> dict[str, str]:
    """The stored coverage a decision table reads of a record, by column: by several of the
    kind's artifacts (stored_coverage), across kinds (stored_mixed)."""
    return {
        "coverage_share": f"coverage__{kind}__coverage",
        "coverage_artifacts": f"coverage__{kind}__artifacts",
        "coverage_shared": f"coverage__{kind}__shared",
        "mixed_share": "mixed_coverage__coverage",
        "mixed_n_kinds": "mixed_coverage__n_kinds",
        "mixed_shared": "mixed_coverage__shared",
    }


def _number(path: str) -> Cast:
    return Cast(KT(path), FloatField())


def _verdicts(table: DecisionTable) -> np.ndarray:
    """The verdict in force on each record of the table (0: none), from the judged records."""
    codes = np.zeros(len(table.ids), dtype=np.int8)
    judged = list(Record.objects.filter(review__isnull=False).values_list("id", "review__verdict"))
    if judged and len(table.ids):
        judged_ids = np.array([pk for pk, _ in judged], dtype=np.int64)
        positions = np.minimum(np.searchsorted(table.ids, judged_ids), len(table.ids) - 1)
        found = table.ids[positions] == judged_ids
        codes[positions[found]] = [
            VERDICT_CODES[verdict] for (_, verdict), hit in zip(judged, found, strict=True) if hit
        ]
    return codes


def decision_table(kind: str) -> tuple[DecisionTable, np.ndarray]:
    """The kind's decision table and the verdicts on its records. The table is kept in the
    process while the filter's decisions stand (built once: about a second at 10^6 records,
    again after an ingest, refilter or threshold change); the verdicts are read again after
    any change (the judged records only)."""
    table_key = f"{kind}:{decision_version()}"
    table = kept_in_process("decision_table", table_key, lambda: _decision_table(kind))
    verdict_key = f"{table_key}:{data_version()}"
    verdicts = kept_in_process("decision_verdicts", verdict_key, lambda: _verdicts(table))
    return table, verdicts


def threshold_preview(kind: str, value: float, dry_run) -> ThresholdPreview:
    """What setting `kind`'s threshold to `value` would do: `dry_run` is the change's own dry
    run (services.threshold_change with dry_run=True, a DecisionCounts), which decides the
    records as applying it would; with stored matches on either side of the value."""
    near = Match.objects.filter(artifact__kind=kind).select_related("artifact", "record__review")
    near = near.only(
        "id", "overlap", "record_id", "artifact__name", "record__status", "record__review__verdict"
    )
    above = list(near.filter(overlap__gt=value).order_by("overlap", "id")[:5])
    below = list(near.filter(overlap__lte=value).order_by("-overlap", "-id")[:5])
    sample = [
        PreviewSample(
            record_id=m.record_id,
            match_id=m.pk,
            artifact=m.artifact.name,
            overlap=m.overlap,
            status=m.record.status,
            verdict=m.record.review.verdict if m.record.review else None,
            would_exceed=m.overlap > value,
        )
        for m in [*reversed(above), *below]
    ]
    return ThresholdPreview(
        kind=kind,
        value=value,
        current=Policies.load().threshold_for(kind),
        newly_excluded=dry_run.excluded,
        newly_released=dry_run.released,
        newly_redacted=dry_run.redacted,
        kept_by_review=dry_run.kept_by_review,
        flagged=dict(dry_run.kept_by_verdict),
        moves=dry_run.move_rows,
        sample=sample,
    )


def threshold_changes(kind: str, limit: int = 20) -> list[ThresholdChange]:
    return list(
        ThresholdChange.objects.filter(kind=kind).select_related("actor").order_by("-id")[:limit]
    )


@dataclass(frozen=True)
class KindChange:
    """One change of a kind's threshold or policy, as the tuning page's history lists it."""

    what: str  # "threshold" or "policy"
    old: str
    new: str
    reason: str
    moved: int | None  # records whose status moved (None: not recorded before it was)
    at: object
    actor: object


def kind_changes(kind: str, limit: int = 20) -> list[KindChange]:
    """The kind's threshold and policy changes, newest first, from their events."""
    events = (
        Event.objects.filter(
            kind=kind, type__in=[Event.Type.THRESHOLD_CHANGED, Event.Type.POLICY_CHANGED]
        )
        .select_related("actor")
        .order_by("-id")[:limit]
    )
    return [
        KindChange(
            what="threshold" if event.type == Event.Type.THRESHOLD_CHANGED else "policy",
            old=str(event.data.get("old", "")),
            new=str(event.data.get("new", "")),
            reason=event.data.get("reason", ""),
            moved=event.data.get("moved"),
            at=event.created_at,
            actor=event.actor,
        )
        for event in events
    ]
